// The XML of the S3 API, for the few fixed shapes the store uses: error
// bodies, ListObjectsV2 results, DeleteObjects requests and results.
//
// The parser is deliberately small: elements, attributes (skipped), text,
// CDATA, comments, processing instructions, the five predefined entities
// and numeric character references. DOCTYPE declarations (and so custom
// entities) are refused, nesting is bounded, namespace prefixes are
// dropped from element names. Callers bound the input size.
#ifndef AWC_STORE_S3_S3_XML_H_
#define AWC_STORE_S3_S3_XML_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace awc::store::s3 {

struct XmlElement {
  std::string name;  // local name, without a namespace prefix
  std::string text;  // the element's own character data, entities decoded
  std::vector<XmlElement> children;

  // The first child named `name`, or nullptr.
  const XmlElement* Child(std::string_view child) const;
  // That child's text, or "" when there is no such child.
  std::string ChildText(std::string_view child) const;
};

// Parses a whole document; its root element. InvalidArgument on malformed
// input.
Result<XmlElement> ParseXml(std::string_view doc);

// <Error><Code>…</Code><Message>…</Message></Error>; empty fields when the
// body is empty or is not such a document (a HEAD response, a proxy page).
struct ErrorBody {
  std::string code;
  std::string message;
};
ErrorBody ParseErrorBody(std::string_view body);

// One page of ListObjectsV2.
struct ListPage {
  struct Object {
    std::string key;
    uint64_t size = 0;
    int64_t modified = 0;  // LastModified, seconds since the epoch (0: none)
  };
  std::vector<Object> objects;
  bool truncated = false;
  std::string next_token;  // NextContinuationToken, when truncated
};
Result<ListPage> ParseListPage(std::string_view body);

// The body of a DeleteObjects request for `keys` (at most 1000).
std::string BuildDeleteRequest(const std::vector<std::string>& keys,
                               bool quiet);

// A DeleteObjects result: the keys deleted and the per-key errors.
struct DeleteResult {
  struct Error {
    std::string key;
    std::string code;
    std::string message;
  };
  std::vector<std::string> deleted;
  std::vector<Error> errors;
};
Result<DeleteResult> ParseDeleteResult(std::string_view body);

}  // namespace awc::store::s3

#endif  // AWC_STORE_S3_S3_XML_H_

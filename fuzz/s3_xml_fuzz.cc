// The S3 XML responses the store parses (errors, ListObjectsV2 pages,
// DeleteObjects results): never crash, whatever a server sends.
#include <string>
#include <vector>

#include "fuzz/fuzz_util.h"
#include "store/s3/s3_xml.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace s3 = awc::store::s3;
  std::string_view body = awc::fuzz::AsText(data, size);
  (void)s3::ParseXml(body);
  (void)s3::ParseErrorBody(body);
  (void)s3::ParseListPage(body);
  (void)s3::ParseDeleteResult(body);
  // Keys the store builds requests for are escaped so that the request
  // always parses back into the same keys.
  std::string key(body.substr(0, 1024));
  awc::Result<s3::XmlElement> doc =
      s3::ParseXml(s3::BuildDeleteRequest({key}, true));
  if (doc.ok() && doc->Child("Object") != nullptr) {
    awc::fuzz::Require(doc->Child("Object")->ChildText("Key") == key ||
                           key.find('\r') != std::string::npos,
                       "a DeleteObjects key round-trips");
  }
  return 0;
}

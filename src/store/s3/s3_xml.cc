#include "store/s3/s3_xml.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>

#include "common/iso_time.h"
#include "common/markup_escape.h"

namespace awc::store::s3 {
namespace {

constexpr int kMaxDepth = 32;

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

void AppendUtf8(uint32_t cp, std::string& out) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xc0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xe0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else {
    out.push_back(static_cast<char>(0xf0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  }
}

Status Malformed(const char* why) {
  return Status::InvalidArgument(std::string("malformed XML: ") + why);
}

class Parser {
 public:
  explicit Parser(std::string_view doc) : s_(doc) {}

  Result<XmlElement> Document() {
    if (s_.starts_with("\xEF\xBB\xBF")) pos_ = 3;
    AWC_RETURN_IF_ERROR(SkipMisc());
    if (At("<!")) return Malformed("DOCTYPE declarations are not accepted");
    if (!At("<")) return Malformed("no root element");
    XmlElement root;
    AWC_RETURN_IF_ERROR(Element(root, 0));
    AWC_RETURN_IF_ERROR(SkipMisc());
    if (pos_ != s_.size()) return Malformed("content after the root element");
    return root;
  }

 private:
  bool At(std::string_view t) const { return s_.substr(pos_).starts_with(t); }

  void SkipSpace() {
    while (pos_ < s_.size() && IsSpace(s_[pos_])) ++pos_;
  }

  // Skips past `end`, which must follow.
  Status SkipPast(std::string_view end) {
    size_t at = s_.find(end, pos_);
    if (at == std::string_view::npos) return Malformed("unterminated markup");
    pos_ = at + end.size();
    return Status::OK();
  }

  // Whitespace, comments and processing instructions outside the root.
  Status SkipMisc() {
    for (;;) {
      SkipSpace();
      if (At("<?")) {
        AWC_RETURN_IF_ERROR(SkipPast("?>"));
      } else if (At("<!--")) {
        AWC_RETURN_IF_ERROR(SkipPast("-->"));
      } else {
        return Status::OK();
      }
    }
  }

  std::string_view Name() {
    size_t start = pos_;
    while (pos_ < s_.size() && !IsSpace(s_[pos_]) && s_[pos_] != '/' &&
           s_[pos_] != '>' && s_[pos_] != '=' && s_[pos_] != '<') {
      ++pos_;
    }
    return s_.substr(start, pos_ - start);
  }

  Status Attributes(bool* empty_element) {
    for (;;) {
      SkipSpace();
      if (At("/>")) {
        pos_ += 2;
        *empty_element = true;
        return Status::OK();
      }
      if (At(">")) {
        ++pos_;
        *empty_element = false;
        return Status::OK();
      }
      if (Name().empty()) return Malformed("bad attribute");
      SkipSpace();
      if (!At("=")) return Malformed("attribute without a value");
      ++pos_;
      SkipSpace();
      if (pos_ >= s_.size() || (s_[pos_] != '"' && s_[pos_] != '\'')) {
        return Malformed("unquoted attribute value");
      }
      char quote = s_[pos_++];
      size_t end = s_.find(quote, pos_);
      if (end == std::string_view::npos)
        return Malformed("unterminated attribute");
      pos_ = end + 1;
    }
  }

  Status Entity(std::string& out) {
    size_t end = s_.find(';', pos_);
    if (end == std::string_view::npos || end - pos_ > 12) {
      return Malformed("bad entity reference");
    }
    std::string_view ref = s_.substr(pos_ + 1, end - pos_ - 1);
    pos_ = end + 1;
    if (ref == "lt") {
      out.push_back('<');
    } else if (ref == "gt") {
      out.push_back('>');
    } else if (ref == "amp") {
      out.push_back('&');
    } else if (ref == "quot") {
      out.push_back('"');
    } else if (ref == "apos") {
      out.push_back('\'');
    } else if (ref.size() >= 2 && ref[0] == '#') {
      bool hex = ref[1] == 'x';
      std::string digits(ref.substr(hex ? 2 : 1));
      if (digits.empty()) return Malformed("bad character reference");
      char* stop = nullptr;
      errno = 0;
      unsigned long cp = strtoul(digits.c_str(), &stop, hex ? 16 : 10);
      if (errno != 0 || *stop != '\0' || cp == 0 || cp > 0x10ffff ||
          (cp >= 0xd800 && cp <= 0xdfff) || !isxdigit(digits[0])) {
        return Malformed("bad character reference");
      }
      AppendUtf8(static_cast<uint32_t>(cp), out);
    } else {
      return Malformed("unknown entity");
    }
    return Status::OK();
  }

  Status Element(XmlElement& e, int depth) {
    if (depth >= kMaxDepth) return Malformed("nested too deeply");
    ++pos_;  // '<'
    std::string_view raw = Name();
    if (raw.empty()) return Malformed("element without a name");
    size_t colon = raw.rfind(':');
    e.name = std::string(
        colon == std::string_view::npos ? raw : raw.substr(colon + 1));
    bool empty = false;
    AWC_RETURN_IF_ERROR(Attributes(&empty));
    if (empty) return Status::OK();
    for (;;) {
      if (pos_ >= s_.size()) return Malformed("unterminated element");
      if (At("</")) {
        pos_ += 2;
        if (Name() != raw) return Malformed("mismatched end tag");
        SkipSpace();
        if (!At(">")) return Malformed("bad end tag");
        ++pos_;
        return Status::OK();
      }
      if (At("<!--")) {
        AWC_RETURN_IF_ERROR(SkipPast("-->"));
      } else if (At("<![CDATA[")) {
        pos_ += 9;
        size_t end = s_.find("]]>", pos_);
        if (end == std::string_view::npos)
          return Malformed("unterminated CDATA");
        e.text.append(s_.substr(pos_, end - pos_));
        pos_ = end + 3;
      } else if (At("<?")) {
        AWC_RETURN_IF_ERROR(SkipPast("?>"));
      } else if (At("<!")) {
        return Malformed("unexpected declaration");
      } else if (At("<")) {
        e.children.emplace_back();
        AWC_RETURN_IF_ERROR(Element(e.children.back(), depth + 1));
      } else if (At("&")) {
        AWC_RETURN_IF_ERROR(Entity(e.text));
      } else {
        size_t end = s_.find_first_of("<&", pos_);
        if (end == std::string_view::npos) end = s_.size();
        e.text.append(s_.substr(pos_, end - pos_));
        pos_ = end;
      }
    }
  }

  std::string_view s_;
  size_t pos_ = 0;
};

bool ParseUint(std::string_view text, uint64_t* out) {
  size_t b = 0, e = text.size();
  while (b < e && IsSpace(text[b])) ++b;
  while (e > b && IsSpace(text[e - 1])) --e;
  if (b == e || e - b > 20) return false;
  uint64_t v = 0;
  for (size_t i = b; i < e; ++i) {
    char c = text[i];
    if (c < '0' || c > '9') return false;
    uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

}  // namespace

const XmlElement* XmlElement::Child(std::string_view child) const {
  for (const XmlElement& c : children) {
    if (c.name == child) return &c;
  }
  return nullptr;
}

std::string XmlElement::ChildText(std::string_view child) const {
  const XmlElement* c = Child(child);
  return c == nullptr ? std::string() : c->text;
}

Result<XmlElement> ParseXml(std::string_view doc) {
  return Parser(doc).Document();
}

ErrorBody ParseErrorBody(std::string_view body) {
  ErrorBody out;
  Result<XmlElement> root = ParseXml(body);
  if (!root.ok() || root->name != "Error") return out;
  out.code = root->ChildText("Code");
  out.message = root->ChildText("Message");
  return out;
}

Result<ListPage> ParseListPage(std::string_view body) {
  AWC_ASSIGN_OR_RETURN(XmlElement root, ParseXml(body));
  if (root.name != "ListBucketResult") {
    return Malformed("expected ListBucketResult");
  }
  ListPage page;
  for (const XmlElement& c : root.children) {
    if (c.name != "Contents") continue;
    ListPage::Object obj;
    const XmlElement* key = c.Child("Key");
    if (key == nullptr || !ParseUint(c.ChildText("Size"), &obj.size)) {
      return Malformed("Contents without Key or Size");
    }
    obj.key = key->text;
    if (const XmlElement* when = c.Child("LastModified")) {
      std::optional<double> secs = ParseIsoUtc(when->text);
      if (!secs) return Malformed("Contents with a malformed LastModified");
      obj.modified = static_cast<int64_t>(*secs);
    }
    page.objects.push_back(std::move(obj));
  }
  std::string truncated = root.ChildText("IsTruncated");
  page.truncated = truncated == "true";
  page.next_token = root.ChildText("NextContinuationToken");
  return page;
}

std::string BuildDeleteRequest(const std::vector<std::string>& keys,
                               bool quiet) {
  std::string out =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
      "<Delete xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">";
  out += quiet ? "<Quiet>true</Quiet>" : "<Quiet>false</Quiet>";
  for (const std::string& k : keys) {
    out += "<Object><Key>";
    out += EscapeMarkup(k);
    out += "</Key></Object>";
  }
  out += "</Delete>";
  return out;
}

Result<DeleteResult> ParseDeleteResult(std::string_view body) {
  AWC_ASSIGN_OR_RETURN(XmlElement root, ParseXml(body));
  if (root.name != "DeleteResult") return Malformed("expected DeleteResult");
  DeleteResult out;
  for (const XmlElement& c : root.children) {
    if (c.name == "Deleted") {
      out.deleted.push_back(c.ChildText("Key"));
    } else if (c.name == "Error") {
      if (c.Child("Key") == nullptr) return Malformed("Error without Key");
      out.errors.push_back(
          {c.ChildText("Key"), c.ChildText("Code"), c.ChildText("Message")});
    }
  }
  return out;
}

}  // namespace awc::store::s3

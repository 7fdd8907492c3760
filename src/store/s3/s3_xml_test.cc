#if AWC_WITH_S3

#include "store/s3/s3_xml.h"

#include <gtest/gtest.h>

#include "common/markup_escape.h"
#include "store/s3/s3_transfer.h"

namespace awc::store::s3 {
namespace {

TEST(S3XmlTest, ParsesElementsTextAndEntities) {
  Result<XmlElement> root = ParseXml(
      "\xEF\xBB\xBF<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<!-- a comment -->\n"
      "<a:Root xmlns:a=\"urn:x\" attr='v>w'>\n"
      "  <Key>a&amp;b&lt;c&gt;&quot;&apos;&#65;&#x263A;</Key>\n"
      "  <Empty/><Empty2></Empty2>\n"
      "  <Data><![CDATA[<not & markup>]]></Data>\n"
      "  <?pi ignored?><!-- inner -->\n"
      "  <Nested><Deeper>x</Deeper></Nested>\n"
      "</a:Root>\n");
  ASSERT_TRUE(root.ok()) << root.status().ToString();
  EXPECT_EQ(root->name, "Root");
  EXPECT_EQ(root->ChildText("Key"), "a&b<c>\"'A\xE2\x98\xBA");
  EXPECT_EQ(root->ChildText("Empty"), "");
  ASSERT_NE(root->Child("Empty2"), nullptr);
  EXPECT_EQ(root->ChildText("Data"), "<not & markup>");
  EXPECT_EQ(root->Child("Nested")->ChildText("Deeper"), "x");
  EXPECT_EQ(root->Child("Missing"), nullptr);
  EXPECT_EQ(root->ChildText("Missing"), "");
}

TEST(S3XmlTest, RefusesMalformedDocuments) {
  std::string nested;
  for (int i = 0; i < 40; ++i) nested += "<a>";
  for (int i = 0; i < 40; ++i) nested += "</a>";
  for (const std::string& bad :
       {std::string(""), std::string("text"), std::string("<a>"),
        std::string("<a></b>"), std::string("<a><b></a></b>"),
        std::string("<a>&unknown;</a>"), std::string("<a>&#0;</a>"),
        std::string("<a>&#x110000;</a>"), std::string("<a>&#xD800;</a>"),
        std::string("<a>&amp</a>"), std::string("<a x=y/>"),
        std::string("<a x='1/>"), std::string("<a></a><b></b>"),
        std::string("<!DOCTYPE a [<!ENTITY e 'x'>]><a>&e;</a>"),
        std::string("<a><![CDATA[x</a>"), std::string("<a><!-- x</a>"),
        nested}) {
    EXPECT_TRUE(ParseXml(bad).status().IsInvalidArgument()) << bad;
  }
}

// Request bodies are escaped with EscapeMarkup (common/markup_escape.h).
TEST(S3XmlTest, EscapedTextReadsBack) {
  Result<XmlElement> round = ParseXml("<K>" + EscapeMarkup("<&'\">") + "</K>");
  ASSERT_TRUE(round.ok());
  EXPECT_EQ(round->text, "<&'\">");
}

TEST(S3XmlTest, ErrorBody) {
  ErrorBody e = ParseErrorBody(
      "<?xml version=\"1.0\" "
      "encoding=\"UTF-8\"?>\n<Error><Code>NoSuchKey</Code>"
      "<Message>The specified key does not exist.</Message><Key>k</Key>"
      "<RequestId>1</RequestId></Error>");
  EXPECT_EQ(e.code, "NoSuchKey");
  EXPECT_EQ(e.message, "The specified key does not exist.");

  for (const char* other : {"", "<html><body>Bad Gateway</body></html>",
                            "<Error><Code>x</Code>", "not xml"}) {
    ErrorBody none = ParseErrorBody(other);
    EXPECT_EQ(none.code, "") << other;
  }
}

TEST(S3XmlTest, ListPage) {
  Result<ListPage> page = ParseListPage(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
      "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
      "<Name>b</Name><Prefix>t1/</Prefix><KeyCount>2</KeyCount>"
      "<MaxKeys>1000</MaxKeys><IsTruncated>true</IsTruncated>"
      "<NextContinuationToken>tok+/=</NextContinuationToken>"
      "<Contents><Key>t1/a&amp;b</Key><LastModified>2026-01-01T00:00:00.000Z"
      "</LastModified><ETag>&quot;x&quot;</ETag><Size>0</Size></Contents>"
      "<Contents><Key>t1/c</Key><Size>18446744073709551615</Size></Contents>"
      "</ListBucketResult>");
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  ASSERT_EQ(page->objects.size(), 2u);
  EXPECT_EQ(page->objects[0].key, "t1/a&b");
  EXPECT_EQ(page->objects[0].size, 0u);
  EXPECT_EQ(page->objects[0].modified, 1767225600);
  EXPECT_EQ(page->objects[1].size, UINT64_MAX);
  EXPECT_EQ(page->objects[1].modified, 0);
  EXPECT_TRUE(page->truncated);
  EXPECT_EQ(page->next_token, "tok+/=");

  Result<ListPage> last = ParseListPage(
      "<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>");
  ASSERT_TRUE(last.ok());
  EXPECT_TRUE(last->objects.empty());
  EXPECT_FALSE(last->truncated);
}

TEST(S3XmlTest, ListPageRefusesBadShapes) {
  for (const char* bad :
       {"<Error><Code>x</Code></Error>",
        "<ListBucketResult><Contents><Size>1</Size></Contents></"
        "ListBucketResult>",
        "<ListBucketResult><Contents><Key>k</Key></Contents></"
        "ListBucketResult>",
        "<ListBucketResult><Contents><Key>k</Key><Size>-1</Size></Contents>"
        "</ListBucketResult>",
        "<ListBucketResult><Contents><Key>k</Key><Size>18446744073709551616"
        "</Size></Contents></ListBucketResult>",
        "<ListBucketResult><Contents><Key>k</Key><Size>1</Size>"
        "<LastModified>yesterday</LastModified></Contents></"
        "ListBucketResult>"}) {
    EXPECT_FALSE(ParseListPage(bad).ok()) << bad;
  }
}

TEST(S3XmlTest, DeleteRequestAndResult) {
  std::string body = BuildDeleteRequest({"a/b", "x&y"}, true);
  Result<XmlElement> req = ParseXml(body);
  ASSERT_TRUE(req.ok()) << body;
  EXPECT_EQ(req->name, "Delete");
  EXPECT_EQ(req->ChildText("Quiet"), "true");
  ASSERT_EQ(req->children.size(), 3u);
  EXPECT_EQ(req->children[1].ChildText("Key"), "a/b");
  EXPECT_EQ(req->children[2].ChildText("Key"), "x&y");

  Result<DeleteResult> r = ParseDeleteResult(
      "<DeleteResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
      "<Deleted><Key>a/b</Key></Deleted>"
      "<Error><Key>x&amp;y</Key><Code>AccessDenied</Code>"
      "<Message>Access Denied</Message></Error></DeleteResult>");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->deleted, std::vector<std::string>{"a/b"});
  ASSERT_EQ(r->errors.size(), 1u);
  EXPECT_EQ(r->errors[0].key, "x&y");
  EXPECT_EQ(r->errors[0].code, "AccessDenied");
  EXPECT_EQ(r->errors[0].message, "Access Denied");

  EXPECT_FALSE(ParseDeleteResult("<DeleteResult><Error><Code>x</Code></Error>"
                                 "</DeleteResult>")
                   .ok());
  EXPECT_FALSE(ParseDeleteResult("<Error/>").ok());
}

TEST(S3XmlTest, ContentMd5) {
  EXPECT_EQ(Md5Base64(""), "1B2M2Y8AsgTpgAmY7PhCfg==");
  EXPECT_EQ(Md5Base64("hello"), "XUFAKrxLKna5cZ2REBfFkg==");
}

}  // namespace
}  // namespace awc::store::s3

#endif  // AWC_WITH_S3

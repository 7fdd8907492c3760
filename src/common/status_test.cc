#include "common/status.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>

namespace awc {
namespace {

TEST(StatusTest, DefaultIsOk) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code(), Status::Code::kOk);
  EXPECT_EQ(s.message(), "");
  EXPECT_EQ(s.ToString(), "OK");
  EXPECT_TRUE(Status::OK().ok());
}

TEST(StatusTest, FactoriesSetCodeAndMessage) {
  struct Case {
    Status status;
    Status::Code code;
    const char* name;
  };
  const Case cases[] = {
      {Status::InvalidArgument("m1"), Status::Code::kInvalidArgument,
       "invalid argument"},
      {Status::NotFound("m2"), Status::Code::kNotFound, "not found"},
      {Status::Transient("m3"), Status::Code::kTransient, "transient"},
      {Status::Corruption("m4"), Status::Code::kCorruption, "corruption"},
      {Status::FailedPrecondition("m5"), Status::Code::kFailedPrecondition,
       "failed precondition"},
      {Status::IoError("m6"), Status::Code::kIoError, "i/o error"},
      {Status::Internal("m7"), Status::Code::kInternal, "internal"},
  };
  int n = 1;
  for (const Case& c : cases) {
    std::string msg = "m" + std::to_string(n++);
    EXPECT_FALSE(c.status.ok()) << msg;
    EXPECT_EQ(c.status.code(), c.code) << msg;
    EXPECT_EQ(c.status.message(), msg);
    EXPECT_EQ(c.status.ToString(), msg);
    EXPECT_STREQ(Status::CodeName(c.code), c.name);
  }
  EXPECT_STREQ(Status::CodeName(Status::Code::kOk), "ok");
}

TEST(StatusTest, PredicatesMatchOnlyTheirCode) {
  Status t = Status::Transient("x");
  EXPECT_TRUE(t.IsTransient());
  EXPECT_FALSE(t.IsNotFound());
  EXPECT_FALSE(t.IsInvalidArgument());
  EXPECT_FALSE(t.IsCorruption());
  EXPECT_FALSE(t.IsFailedPrecondition());
  EXPECT_TRUE(Status::NotFound("x").IsNotFound());
  EXPECT_FALSE(Status::NotFound("x").IsTransient());
  EXPECT_TRUE(Status::InvalidArgument("x").IsInvalidArgument());
  EXPECT_TRUE(Status::Corruption("x").IsCorruption());
  EXPECT_TRUE(Status::FailedPrecondition("x").IsFailedPrecondition());
  EXPECT_FALSE(Status::OK().IsTransient());
  EXPECT_FALSE(Status::Internal("x").IsTransient());
}

TEST(StatusTest, WithContextPrefixesAndKeepsCode) {
  Status s = Status::NotFound("object missing").WithContext("snapshot 42");
  EXPECT_EQ(s.message(), "snapshot 42: object missing");
  EXPECT_TRUE(s.IsNotFound());
  Status twice = s.WithContext("validate");
  EXPECT_EQ(twice.message(), "validate: snapshot 42: object missing");
  EXPECT_TRUE(twice.IsNotFound());
  // The original is unchanged.
  EXPECT_EQ(s.message(), "snapshot 42: object missing");
}

TEST(StatusTest, WithContextOnOkStaysOk) {
  Status s = Status::OK().WithContext("ctx");
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.message(), "");
}

TEST(ResultTest, HoldsAValue) {
  Result<int> r = 42;
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r.status().ok());
  EXPECT_EQ(r.value(), 42);
  EXPECT_EQ(*r, 42);
  *r = 7;
  EXPECT_EQ(r.value(), 7);
}

TEST(ResultTest, HoldsAStatus) {
  Result<int> r = Status::Transient("db gone");
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsTransient());
  EXPECT_EQ(r.status().message(), "db gone");
}

TEST(ResultTest, OkStatusBecomesInternalError) {
  Result<int> r = Status::OK();
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kInternal);
}

TEST(ResultTest, ArrowAndMoveOnlyValues) {
  Result<std::string> s = std::string("hello");
  EXPECT_EQ(s->size(), 5u);
  Result<std::unique_ptr<int>> p = std::make_unique<int>(9);
  ASSERT_TRUE(p.ok());
  std::unique_ptr<int> taken = std::move(p).value();
  ASSERT_NE(taken, nullptr);
  EXPECT_EQ(*taken, 9);
}

TEST(ResultTest, CopyAndMoveKeepTheState) {
  Result<std::string> a = std::string("v");
  Result<std::string> b = a;
  EXPECT_EQ(*b, "v");
  Result<std::string> e = Status::NotFound("gone");
  Result<std::string> f = std::move(e);
  EXPECT_FALSE(f.ok());
  EXPECT_TRUE(f.status().IsNotFound());
  b = f;
  EXPECT_FALSE(b.ok());
  EXPECT_EQ(b.status().message(), "gone");
}

// Helpers for the macros.
Result<int> Half(int v) {
  if (v % 2 != 0) return Status::InvalidArgument(std::to_string(v) + " is odd");
  return v / 2;
}

Status CheckPositive(int v) {
  if (v <= 0) return Status::InvalidArgument("not positive");
  return Status::OK();
}

int g_reached = 0;

Result<int> Quarter(int v) {
  AWC_ASSIGN_OR_RETURN(int h, Half(v));
  AWC_ASSIGN_OR_RETURN(int q, Half(h));
  ++g_reached;
  return q;
}

Status PositiveQuarter(int v) {
  AWC_RETURN_IF_ERROR(CheckPositive(v));
  AWC_ASSIGN_OR_RETURN(int q, Quarter(v));
  AWC_RETURN_IF_ERROR(CheckPositive(q));
  ++g_reached;
  return Status::OK();
}

Result<std::unique_ptr<int>> MakeBox(int v) {
  if (v < 0) return Status::NotFound("no box");
  return std::make_unique<int>(v);
}

Result<int> Unbox(int v) {
  AWC_ASSIGN_OR_RETURN(std::unique_ptr<int> box, MakeBox(v));
  return *box + 1;
}

TEST(MacroTest, AssignOrReturnPassesValuesThrough) {
  g_reached = 0;
  Result<int> r = Quarter(12);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, 3);
  EXPECT_EQ(g_reached, 1);
}

TEST(MacroTest, AssignOrReturnReturnsTheFirstError) {
  g_reached = 0;
  Result<int> r = Quarter(6);  // 6 -> 3, then 3 is odd
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "3 is odd");
  EXPECT_TRUE(r.status().IsInvalidArgument());
  r = Quarter(5);
  EXPECT_EQ(r.status().message(), "5 is odd");
  EXPECT_EQ(g_reached, 0);
}

TEST(MacroTest, AssignOrReturnMovesMoveOnlyValues) {
  Result<int> r = Unbox(4);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 5);
  r = Unbox(-1);
  EXPECT_TRUE(r.status().IsNotFound());
}

TEST(MacroTest, ReturnIfErrorStopsAtTheFirstError) {
  g_reached = 0;
  EXPECT_TRUE(PositiveQuarter(8).ok());
  EXPECT_EQ(g_reached, 2);
  g_reached = 0;
  EXPECT_EQ(PositiveQuarter(-8).message(), "not positive");
  EXPECT_EQ(PositiveQuarter(10).message(), "5 is odd");
  EXPECT_EQ(g_reached, 0);
}

TEST(MacroTest, ReturnIfErrorWorksInIfWithoutBraces) {
  auto f = [](bool check) -> Status {
    if (check)
      AWC_RETURN_IF_ERROR(Status::Corruption("bad"));
    else
      return Status::NotFound("skipped");
    return Status::OK();
  };
  EXPECT_TRUE(f(true).IsCorruption());
  EXPECT_TRUE(f(false).IsNotFound());
}

}  // namespace
}  // namespace awc

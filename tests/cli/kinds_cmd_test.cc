// awcctl kinds list|pause|resume against a real database: the argument
// checks (usage errors, exit 2), pausing and resuming twice, the listing,
// what health, stats and schedules list say of a paused kind, the
// production guard and the read-only session of list.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/json.h"
#include "tests/support/harness.h"

namespace awc::testing {
namespace {

JsonPtr MustParse(const std::string& text) {
  Result<JsonPtr> j = ParseJson(text);
  EXPECT_TRUE(j.ok()) << text;
  return j.ok() ? std::move(*j) : JsonPtr(json_object());
}

class AwcctlKindsTest : public ::testing::Test {
 protected:
  void SetUp() override { db_.Migrate(); }
  CommandResult Run(std::vector<std::string> args,
                    std::vector<std::pair<std::string, std::string>> env = {}) {
    env.push_back({"DATABASE_URL", db_.url()});
    return RunAwcctl(std::move(args), std::move(env));
  }
  int64_t Paused() { return db_.Int("SELECT count(*) FROM awc.paused_kinds"); }

  TestDatabase db_;
};

TEST_F(AwcctlKindsTest, BadArgumentsAreUsageErrors) {
  struct Case {
    std::vector<std::string> args;
    std::string message;  // the first line of stderr after "awcctl: "
  };
  const Case cases[] = {
      {{"kinds", "pause"}, ""},
      {{"kinds", "pause", "a", "b"}, ""},
      {{"kinds", "resume"}, ""},
      {{"kinds", "pause", ""}, "KIND is empty"},
      {{"kinds", "pause", std::string(129, 'k'), "--force"},
       "KIND is longer than 128 bytes (129)"},
      {{"kinds", "resume", std::string(129, 'k')},
       "KIND is longer than 128 bytes (129)"},
      {{"kinds", "pause", "no_such_kind"},
       "unknown job kind \"no_such_kind\": not built in and no job of it in "
       "awc.jobs; --force pauses it anyway"},
      {{"kinds", "pause", "gc_sweep", "--reason"}, ""},
      {{"kinds", "list", "extra"}, ""},
  };
  for (const Case& c : cases) {
    CommandResult r = Run(c.args);
    EXPECT_EQ(r.code, 2) << ::testing::PrintToString(c.args) << r.err;
    EXPECT_EQ(r.out, "") << ::testing::PrintToString(c.args);
    EXPECT_NE(r.err.find("usage: awcctl kinds"), std::string::npos) << r.err;
    if (!c.message.empty()) {
      EXPECT_NE(r.err.find("awcctl: " + c.message + "\n"), std::string::npos)
          << r.err;
    }
  }
  EXPECT_EQ(Paused(), 0);
}

TEST_F(AwcctlKindsTest, PauseListAndResume) {
  // A kind with jobs needs no --force; one without, not built in, does.
  db_.Enqueue("test_complete", "{}");
  db_.Enqueue("test_complete", "{}");
  CommandResult p = Run({"kinds", "pause", "test_complete", "--reason", "bad"});
  ASSERT_EQ(p.code, 0) << p.err;
  EXPECT_TRUE(p.out.starts_with("kind test_complete paused at ")) << p.out;
  EXPECT_TRUE(p.out.ends_with(" (bad)\n")) << p.out;
  CommandResult again =
      Run({"kinds", "pause", "test_complete", "--reason", "other"});
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_TRUE(
      again.out.starts_with("kind test_complete was already paused since "))
      << again.out;
  EXPECT_TRUE(again.out.ends_with(" (bad)\n")) << again.out;  // kept
  ASSERT_EQ(Run({"kinds", "pause", "future_kind", "--force", "--json"}).code,
            0);
  ASSERT_EQ(Run({"kinds", "pause", "snapshot_scrub"}).code, 0);  // built in
  EXPECT_EQ(Paused(), 3);
  EXPECT_EQ(db_.Scalar("SELECT reason FROM awc.paused_kinds WHERE kind = "
                       "'test_complete'"),
            "bad");
  EXPECT_NE(db_.Scalar("SELECT paused_by FROM awc.paused_kinds WHERE kind = "
                       "'test_complete'"),
            "");

  CommandResult list = Run({"kinds", "list", "--json"});
  ASSERT_EQ(list.code, 0) << list.err;
  JsonPtr doc = MustParse(list.out);
  json_t* kinds = json_object_get(doc.get(), "kinds");
  ASSERT_TRUE(json_is_array(kinds)) << list.out;
  std::string seen;
  for (size_t i = 0; i < json_array_size(kinds); ++i) {
    json_t* k = json_array_get(kinds, i);
    std::string name = Str(k, "kind");
    bool paused = json_is_true(json_object_get(k, "paused"));
    seen += name + (paused ? "*" : "") + " ";
    if (name == "test_complete") {
      EXPECT_EQ(Int(k, "pending"), 2);
      EXPECT_EQ(Str(json_object_get(k, "pause"), "reason"), "bad");
      EXPECT_FALSE(json_is_true(json_object_get(k, "builtin")));
    }
    if (name == "gc_sweep") {
      EXPECT_TRUE(json_is_null(json_object_get(k, "pause")));
      EXPECT_TRUE(json_is_true(json_object_get(k, "builtin")));
    }
    // What the host's background places limit.
    EXPECT_EQ(json_is_true(json_object_get(k, "background")),
              name == "gc_sweep" || name == "snapshot_scrub" ||
                  name == "store_reconcile")
        << name;
  }
  // The built-in kinds, the paused ones and those with jobs, by kind.
  EXPECT_EQ(seen,
            "future_kind* gc_sweep snapshot_retain snapshot_scrub* "
            "snapshot_validate store_reconcile test_complete* workspace_expire ");
  CommandResult text = Run({"kinds"});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_TRUE(text.out.starts_with("KIND")) << text.out;
  EXPECT_NE(text.out.find("PAUSED_BY"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("BACKGROUND"), std::string::npos) << text.out;

  // health says which kinds are paused, and is ready all the same.
  CommandResult health = Run({"health"});
  EXPECT_EQ(health.code, 0) << health.out << health.err;
  EXPECT_NE(health.out.find("kinds     ok      3 paused: future_kind "
                            "snapshot_scrub test_complete\n"),
            std::string::npos)
      << health.out;

  // stats marks the paused kinds, those without jobs too.
  CommandResult stats = Run({"stats", "--json"});
  ASSERT_EQ(stats.code, 0) << stats.err;
  JsonPtr st = MustParse(stats.out);
  std::string stat_kinds;
  json_t* jobs = json_object_get(st.get(), "jobs");
  for (size_t i = 0; i < json_array_size(jobs); ++i) {
    json_t* k = json_array_get(jobs, i);
    stat_kinds += Str(k, "kind") +
                  (json_is_true(json_object_get(k, "paused")) ? "*" : "") + " ";
  }
  EXPECT_EQ(stat_kinds, "future_kind* snapshot_scrub* test_complete* ");

  // schedules list marks a schedule whose kind is paused: its firings
  // still enqueue.
  CommandResult sched = Run({"schedules", "list"});
  ASSERT_EQ(sched.code, 0) << sched.err;
  EXPECT_NE(sched.out.find("snapshot_scrub (paused)"), std::string::npos)
      << sched.out;
  EXPECT_EQ(sched.out.find("gc_sweep (paused)"), std::string::npos)
      << sched.out;
  CommandResult sched_json = Run({"schedules", "list", "--json"});
  ASSERT_EQ(sched_json.code, 0) << sched_json.err;
  EXPECT_NE(sched_json.out.find("\"kind_paused\": true"), std::string::npos)
      << sched_json.out;

  CommandResult r = Run({"kinds", "resume", "test_complete"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "kind test_complete resumed\n");
  CommandResult r2 = Run({"kinds", "resume", "test_complete", "--json"});
  ASSERT_EQ(r2.code, 0) << r2.err;
  JsonPtr r2doc = MustParse(r2.out);
  EXPECT_FALSE(json_is_true(json_object_get(r2doc.get(), "changed")));
  EXPECT_EQ(Run({"kinds", "resume", "test_complete"}).out,
            "kind test_complete was not paused\n");
  EXPECT_EQ(Paused(), 2);
}

// No control character of a kind name, a reason or a login name reaches
// the terminal, from any verb that echoes them (awcctl(1), OUTPUT): they are
// shown as kinds list shows them, one line each.
TEST_F(AwcctlKindsTest, StoredAndTypedTextIsEscaped) {
  const std::string osc = "\x1b]0;pwned\x07";
  const std::string kind = "evil" + osc;
  const std::string reason = osc + "\nkind gc_sweep resumed";
  auto expect_clean = [](const CommandResult& r) {
    for (const std::string* text : {&r.out, &r.err}) {
      for (char c : *text) {
        bool control =
            (static_cast<unsigned char>(c) < 0x20 && c != '\n') || c == 0x7f;
        EXPECT_FALSE(control) << ::testing::PrintToString(*text);
        if (control) break;
      }
    }
  };
  // Typed, refused: the usage error quotes the kind.
  CommandResult unknown = Run({"kinds", "pause", kind});
  EXPECT_EQ(unknown.code, 2);
  expect_clean(unknown);
  EXPECT_NE(unknown.err.find("unknown job kind \"evil ]0;pwned \""),
            std::string::npos)
      << unknown.err;

  const std::vector<std::pair<std::string, std::string>> user = {
      {"USER", "root\x1b[8m"}};
  CommandResult p =
      Run({"kinds", "pause", kind, "--force", "--reason", reason}, user);
  ASSERT_EQ(p.code, 0) << p.err;
  expect_clean(p);
  EXPECT_TRUE(p.out.starts_with("kind evil ]0;pwned  paused at ")) << p.out;
  EXPECT_TRUE(p.out.ends_with(" ( ]0;pwned  kind gc_sweep resumed)\n"))
      << p.out;
  EXPECT_EQ(std::count(p.out.begin(), p.out.end(), '\n'), 1) << p.out;
  EXPECT_NE(p.out.find(" by root [8m@"), std::string::npos) << p.out;
  CommandResult again = Run({"kinds", "pause", kind, "--force"});
  ASSERT_EQ(again.code, 0) << again.err;
  expect_clean(again);
  EXPECT_EQ(std::count(again.out.begin(), again.out.end(), '\n'), 1)
      << again.out;
  CommandResult list = Run({"kinds", "list"});
  ASSERT_EQ(list.code, 0) << list.err;
  expect_clean(list);
  CommandResult health = Run({"health"});
  expect_clean(health);
  CommandResult r = Run({"kinds", "resume", kind});
  ASSERT_EQ(r.code, 0) << r.err;
  expect_clean(r);
  EXPECT_EQ(r.out, "kind evil ]0;pwned  resumed\n");
  CommandResult not_paused = Run({"kinds", "resume", kind});
  expect_clean(not_paused);
  EXPECT_EQ(not_paused.out, "kind evil ]0;pwned  was not paused\n");
  // The JSON form keeps the text, escaped as JSON escapes it.
  CommandResult json = Run({"kinds", "pause", kind, "--force", "--json"});
  ASSERT_EQ(json.code, 0) << json.err;
  expect_clean(json);
  EXPECT_EQ(Str(MustParse(json.out).get(), "kind"), kind);
}

// Pause and resume write: on a production database they pass the guard
// (refused without a terminal, exit 3); list only reads, in a read-only
// session.
TEST_F(AwcctlKindsTest, WritesPassTheGuardAndListOnlyReads) {
  const std::vector<std::pair<std::string, std::string>> production = {
      {"AWC_PRODUCTION", "1"}};
  CommandResult refused = Run({"kinds", "pause", "gc_sweep"}, production);
  EXPECT_EQ(refused.code, 3) << refused.err;
  EXPECT_EQ(Paused(), 0);
  EXPECT_EQ(Run({"kinds", "pause", "gc_sweep", "--yes"}, production).code, 0);
  EXPECT_EQ(Paused(), 1);
  EXPECT_EQ(Run({"kinds", "resume", "gc_sweep"}, production).code, 3);
  EXPECT_EQ(Run({"kinds", "list"}, production).code, 0);
  EXPECT_EQ(Run({"kinds", "resume", "gc_sweep", "--yes"}, production).code, 0);
  EXPECT_EQ(Paused(), 0);
  // A read-only session can read the table.
  db_.Exec("INSERT INTO awc.paused_kinds (kind) VALUES ('gc_sweep')");
  auto conn = db_.Connect();
  ASSERT_TRUE(conn->Exec("SET default_transaction_read_only = on").ok());
  auto read = conn->Exec("SELECT count(*) FROM awc.paused_kinds");
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read->GetInt(0, 0), 1);
}

}  // namespace
}  // namespace awc::testing

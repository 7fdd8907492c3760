#include "fleet/id_clash.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/json.h"
#include "obs/log_testing.h"

namespace awc::fleet {
namespace {

using Rows = std::vector<std::pair<std::string, std::string>>;

TEST(IdClashGroupTest, RowsOfOneIdOnSeveralHostsAreAClash) {
  std::vector<IdClash> clashes = GroupIdClashes(Rows{{"a", "host-2"},
                                                     {"a", "host-1"},
                                                     {"b", "host-1"},
                                                     {"c", "h"},
                                                     {"c", "i"},
                                                     {"c", "j"}});
  ASSERT_EQ(clashes.size(), 2u);
  EXPECT_EQ(clashes[0].worker_id, "a");
  EXPECT_EQ(clashes[0].hosts, (std::vector<std::string>{"host-1", "host-2"}));
  EXPECT_EQ(clashes[1].worker_id, "c");
  EXPECT_EQ(HostList(clashes[1]), "h, i, j");
  EXPECT_EQ(Describe(clashes[0]),
            "worker id a is in use on 2 hosts: host-1, host-2; give each "
            "host its own AWC_WORKER_ID (or leave it unset)");
  EXPECT_TRUE(GroupIdClashes({}).empty());
}

class IdClashWatchTest : public ::testing::Test {
 protected:
  // "<level> <msg> <worker_id> <hosts>" of each event since the last call.
  std::vector<std::string> Events() {
    std::vector<std::string> lines;
    for (const JsonPtr& e : log_.Events()) {
      auto str = [&](const char* key) {
        return obs::CapturedLog::Str(e.get(), key);
      };
      lines.push_back(str("level") + " " + str("msg") + " " + str("worker_id") +
                      " " + str("hosts"));
    }
    return lines;
  }
  obs::CapturedLog log_;
};

TEST_F(IdClashWatchTest, EachClashOfThisHostIsToldOnceAndWhenItIsOver) {
  IdClashWatch watch("host-a");
  IdClash mine{"shared", {"host-a", "host-b"}};
  IdClash others{"theirs", {"host-c", "host-d"}};
  std::vector<std::string> lines = watch.Update({mine, others});
  EXPECT_EQ(lines, std::vector<std::string>{Describe(mine)});
  EXPECT_EQ(Events(), (std::vector<std::string>{
                          "warn worker id in use on more than one host "
                          "shared host-a, host-b"}));
  // Seen again at every check: no new event.
  EXPECT_EQ(watch.Update({mine, others}), lines);
  EXPECT_EQ(watch.Update({mine}), lines);
  EXPECT_TRUE(Events().empty());
  // A third host joins: another clash, and the first is over.
  IdClash wider{"shared", {"host-a", "host-b", "host-e"}};
  watch.Update({wider});
  EXPECT_EQ(Events(),
            (std::vector<std::string>{
                "warn worker id in use on more than one host shared host-a, "
                "host-b, host-e",
                "info worker id no longer in use on more than one host "
                "shared host-a, host-b"}));
  EXPECT_TRUE(watch.Update({}).empty());
  EXPECT_EQ(Events(), (std::vector<std::string>{
                          "info worker id no longer in use on more than one "
                          "host shared host-a, host-b, host-e"}));
  EXPECT_TRUE(watch.Update({}).empty());
  EXPECT_TRUE(Events().empty());
}

}  // namespace
}  // namespace awc::fleet

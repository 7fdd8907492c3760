#include "fleet/id_clash.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <jansson.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "common/json.h"
#include "obs/log.h"

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
  void SetUp() override {
    ASSERT_EQ(pipe(fds_), 0);
    ASSERT_EQ(fcntl(fds_[0], F_SETFL, O_NONBLOCK), 0);
    obs::SetLogFd(fds_[1]);
  }
  void TearDown() override {
    obs::SetLogFd(2);
    close(fds_[0]);
    close(fds_[1]);
  }
  // "<level> <msg> <worker_id> <hosts>" of each event since the last call.
  std::vector<std::string> Events() {
    std::string out;
    char buf[4096];
    for (ssize_t n; (n = read(fds_[0], buf, sizeof buf)) > 0;) {
      out.append(buf, static_cast<size_t>(n));
    }
    std::vector<std::string> lines;
    size_t start = 0;
    for (size_t nl; (nl = out.find('\n', start)) != std::string::npos;
         start = nl + 1) {
      Result<JsonPtr> doc = ParseJson(out.substr(start, nl - start));
      EXPECT_TRUE(doc.ok());
      if (!doc.ok()) continue;
      auto str = [&](const char* key) {
        const char* v = json_string_value(json_object_get(doc->get(), key));
        return std::string(v != nullptr ? v : "");
      };
      lines.push_back(str("level") + " " + str("msg") + " " + str("worker_id") +
                      " " + str("hosts"));
    }
    return lines;
  }
  int fds_[2] = {-1, -1};
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

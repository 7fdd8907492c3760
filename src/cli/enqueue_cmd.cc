// awcctl enqueue KIND JSON (awcctl(1), "enqueue").
#include <cstdlib>

#include "cli/invocation.h"
#include "cli/job_check.h"
#include "cli/verbs.h"
#include "queue/admin.h"
#include "queue/job.h"

namespace awc::cli {
namespace {

int RunEnqueue(Invocation& inv) {
  const ParsedArgs& a = inv.args();
  queue::EnqueueOptions options;
  if (a.Has("max-attempts")) {
    Result<int64_t> n =
        ParseCount(a.Get("max-attempts"), "--max-attempts", 1, 1000000);
    if (!n.ok()) return inv.Usage(n.status().message());
    options.max_attempts = static_cast<int>(*n);
  }
  if (a.Has("delay")) {
    std::string text = a.Get("delay");
    char* end = nullptr;
    double delay = strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !(delay >= 0) || delay > 1e9) {
      return inv.Usage("--delay needs a number of seconds >= 0");
    }
    options.delay_secs = delay;
  }
  if (a.Has("priority")) {
    Result<int64_t> n = ParseCount(a.Get("priority"), "--priority", 0,
                                   queue::kPriorityCount - 1);
    if (!n.ok()) return inv.Usage(n.status().message());
    options.priority = static_cast<int>(*n);
  }
  const std::string& kind = a.positional[0];
  const std::string& payload = a.positional[1];
  if (Status s = CheckKind(kind); !s.ok()) return inv.Usage(s.message());
  if (!ParseJson(payload).ok()) return inv.Usage("JSON is not valid JSON");
  if (!a.Has("force")) {
    if (Status s = CheckJob(kind, payload); !s.ok()) {
      return inv.Usage(s.message() + "; --force enqueues it anyway");
    }
  }
  Result<db::PgConn*> conn = inv.Connect({.changes = true});
  if (!conn.ok()) return inv.Fail(conn.status());
  Result<int64_t> id = queue::Enqueue(**conn, kind, payload, options);
  if (!id.ok()) return inv.Fail(id.status());
  if (inv.json()) {
    JsonPtr doc(json_object());
    json_object_set_new(doc.get(), "id", json_integer(*id));
    inv.Print(doc);
  } else {
    inv.Print(std::to_string(*id) + "\n");
  }
  return kExitOk;
}

}  // namespace

void AddEnqueueCommands(std::vector<Command>* out) {
  Command c{"enqueue",
            "KIND JSON [--max-attempts N] [--delay SECS] [--priority N] "
            "[--force] [--yes] [--json]",
            "insert a job; prints its id",
            "KIND must be a kind this awcctl knows and JSON a payload its\n"
            "decoder accepts, as the daemon would check them; --force skips\n"
            "that check (for kinds of a newer awc-worker), not the limit of\n"
            "every job: KIND is 1 to 128 bytes all the same.\n",
            {{"max-attempts", "N",
              "attempts before it is dead-lettered "
              "(default 5)"},
             {"delay", "SECS", "ready SECS seconds from now"},
             {"priority", "N",
              "0 (the most urgent) to 9; default: the kind's (awcctl kinds "
              "list)"},
             {"force", nullptr, "skip the kind and payload check"}}};
  c.min_args = c.max_args = 2;
  c.json = true;
  c.changes = true;
  c.run = RunEnqueue;
  out->push_back(c);
}

}  // namespace awc::cli

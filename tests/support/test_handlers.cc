#include "tests/support/test_handlers.h"

#include <ev.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "common/env.h"
#include "gc/sweep_testing.h"
#include "handlers/payload.h"

namespace awc::testing {
namespace {

struct Empty {};
struct Millis {
  int64_t ms;
};
struct Secs {
  int64_t secs;
};

Result<Empty> DecodeEmpty(const json_t* payload) {
  AWC_RETURN_IF_ERROR(handlers::PayloadReader(payload).ExpectObject({}));
  return Empty{};
}

Result<Millis> DecodeMillis(const json_t* payload) {
  handlers::PayloadReader r(payload);
  AWC_RETURN_IF_ERROR(r.ExpectObject({"ms"}));
  AWC_ASSIGN_OR_RETURN(int64_t ms, r.Int("ms", 0));
  return Millis{ms};
}

Result<Secs> DecodeSecs(const json_t* payload) {
  handlers::PayloadReader r(payload);
  AWC_RETURN_IF_ERROR(r.ExpectObject({"secs"}));
  AWC_ASSIGN_OR_RETURN(int64_t secs, r.Int("secs", 0));
  return Secs{secs};
}

void OnLoopWaitDone(struct ev_loop* loop, ev_timer*, int) {
  ev_break(loop, EVBREAK_ONE);
}

void SleepMs(int64_t ms) {
  Env::Default()->SleepFor(static_cast<double>(ms) / 1000);
}

// The fence of test_effect: the job row, locked, only while this claim
// still holds it. $1 job id, $2 lease token.
constexpr const char* kFenceJob = R"sql(
SELECT attempts FROM awc.jobs
 WHERE id = $1 AND state = 'RUNNING' AND lease_token = $2
   FOR UPDATE
)sql";
// $1 job id, $2 lease token, $3 attempt.
constexpr const char* kAppendEffect = R"sql(
INSERT INTO awc_test.effects (job_id, lease_token, attempt, at)
VALUES ($1, $2, $3, clock_timestamp())
)sql";

}  // namespace

void RegisterTestHandlers(handlers::Registry& registry) {
  handlers::RegisterBuiltinHandlers(registry);
  using queue::Outcome;
  using Ctx = handlers::JobContext;
  registry.Add<Empty>("test_complete", DecodeEmpty, [](Ctx&, const Empty&) {
    return Outcome::Complete(R"({"ok": true})");
  });
  registry.Add<Millis>(
      "test_sleep", DecodeMillis, [](Ctx& ctx, const Millis& p) {
        for (int64_t left = p.ms; left > 0; left -= 10) {
          SleepMs(left < 10 ? left : 10);
          if (!ctx.Checkpoint().ok()) break;
        }
        return Outcome::Complete("{\"slept_ms\": " + std::to_string(p.ms) +
                                 "}");
      });
  registry.Add<Millis>("test_loop_wait", DecodeMillis,
                       [](Ctx& ctx, const Millis& p) {
                         // Waits on the worker's event loop, as a handler
                         // blocked on S3 transfers does, never calling
                         // Checkpoint() itself.
                         ev_timer done;
                         ev_timer_init(&done, OnLoopWaitDone,
                                       static_cast<double>(p.ms) / 1e3, 0);
                         ev_now_update(ctx.loop());
                         ev_timer_start(ctx.loop(), &done);
                         ev_run(ctx.loop(), 0);
                         ev_timer_stop(ctx.loop(), &done);
                         return Outcome::Complete("{}");
                       });
  registry.Add<Millis>(
      "test_db_hold", DecodeMillis, [](Ctx& ctx, const Millis& p) {
        // Holds the connection across checkpoints, as GC and validation do,
        // and uses it at the end.
        db::PgConn& conn = ctx.db();
        for (int64_t left = p.ms; left > 0; left -= 10) {
          SleepMs(left < 10 ? left : 10);
          (void)ctx.Checkpoint();
        }
        Status s = conn.Exec("SELECT 1").status();
        return s.ok() ? Outcome::Complete("{}")
                      : Outcome::Retry("connection lost during the job");
      });
  registry.Add<handlers::TenantPayload>(
      "test_gc_crash", handlers::DecodeTenantPayload,
      [](Ctx& ctx, const handlers::TenantPayload& p) {
        // A GC epoch whose worker dies (SIGKILL) right after the store has
        // deleted the first batch and before the rows are removed.
        gc::SweepOptions o = ctx.options().sweep;
        o.holder = "job_" + std::to_string(ctx.job().id);
        o.job_id = ctx.job().id;
        gc::SweepHooks hooks;
        hooks.after_store_delete = [](int64_t) {
          raise(SIGKILL);
          return Status::OK();
        };
        (void)gc::RunSweepWithHooks(ctx.db(), ctx.store(), p.tenant_id, o,
                                    nullptr, hooks);
        return Outcome::Fail("the crash did not happen");
      });
  registry.Add<Millis>(
      "test_effect", DecodeMillis, [](Ctx& ctx, const Millis& p) {
        for (int64_t left = p.ms; left > 0; left -= 10) {
          SleepMs(left < 10 ? left : 10);
          if (!ctx.Checkpoint().ok()) break;
        }
        const queue::Job& job = ctx.job();
        std::string id = std::to_string(job.id);
        std::string token = std::to_string(job.lease_token);
        bool fenced = false;
        Status s = db::InTransaction(ctx.db(), [&]() -> Status {
          AWC_ASSIGN_OR_RETURN(db::PgResult held,
                               ctx.db().Exec(kFenceJob, {id, token}));
          if (held.rows() == 0) return Status::OK();
          fenced = true;
          return ctx.db()
              .Exec(kAppendEffect, {id, token, held.GetString(0, 0)})
              .status();
        });
        if (!s.ok()) return Outcome::Retry("effect not recorded");
        if (!fenced) return Outcome::Retry("the lease was lost");
        return Outcome::Complete(R"({"effect": true})");
      });
  registry.Add<Millis>(
      "test_stalled_effect", DecodeMillis, [](Ctx& ctx, const Millis& p) {
        const queue::Job& job = ctx.job();
        if (job.attempts == 1) SleepMs(p.ms);
        Status s = db::InTransaction(ctx.db(), [&]() -> Status {
          return ctx.db()
              .Exec(kAppendEffect,
                    {std::to_string(job.id), std::to_string(job.lease_token),
                     std::to_string(job.attempts)})
              .status();
        });
        if (!s.ok()) return Outcome::Retry("effect not recorded");
        return Outcome::Complete(R"({"effect": true})");
      });
  registry.Add<Empty>("test_unstorable", DecodeEmpty, [](Ctx&, const Empty&) {
    // Valid JSON that jsonb refuses (SQLSTATE 22P05): the database will
    // never store this result.
    return Outcome::Complete(R"({"nul": "\u0000"})");
  });
  registry.Add<Empty>("test_retry", DecodeEmpty, [](Ctx&, const Empty&) {
    return Outcome::Retry("TEST-ERROR-TEXT transient");
  });
  registry.Add<Empty>("test_fail", DecodeEmpty, [](Ctx&, const Empty&) {
    return Outcome::Fail("TEST-ERROR-TEXT permanent");
  });
  registry.Add<Empty>("test_crash", DecodeEmpty, [](Ctx&, const Empty&) {
    raise(SIGKILL);
    return Outcome::Fail("unreachable");
  });
  registry.Add<Secs>("test_defer", DecodeSecs, [](Ctx&, const Secs& p) {
    return Outcome::Defer(static_cast<double>(p.secs), "test deferral");
  });
}

void RegisterNextReleaseHandlers(handlers::Registry& registry) {
  RegisterTestHandlers(registry);
  registry.Add<Empty>("test_next_kind", DecodeEmpty,
                      [](handlers::JobContext&, const Empty&) {
                        return queue::Outcome::Complete(R"({"by": "next"})");
                      });
}

}  // namespace awc::testing

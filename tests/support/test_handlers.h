// Handlers that exist only in the test daemons (awc-worker-testd and
// awc-worker-testd-next), to drive
// the real process tree through every queue path. Never shipped.
//
//   test_complete {}            -> Complete {"ok": true}
//   test_sleep    {"ms": N}     -> sleeps N ms in 10 ms steps, calling
//                                  Checkpoint() each step; Complete
//   test_loop_wait {"ms": N}    -> runs the worker's event loop for N ms
//                                  without checkpoints; Complete
//   test_db_hold  {"ms": N}     -> holds ctx.db() across N ms of checkpoints,
//                                  then queries it; Complete, or Retry when
//                                  the connection was lost meanwhile
//   test_gc_crash {"tenant_id"} -> a GC epoch whose worker is SIGKILLed
//                                  between the store delete and the rows
//   test_unstorable {}          -> Complete with a result the database
//                                  refuses (jsonb: \u0000)
//   test_retry    {}            -> Retry (error text "TEST-ERROR-TEXT")
//   test_fail     {}            -> Fail (error text "TEST-ERROR-TEXT")
//   test_crash    {}            -> the worker process dies by SIGKILL
//   test_defer    {"secs": N}   -> Defer N seconds (no attempt spent)
//   test_effect   {"ms": N}     -> sleeps like test_sleep, then, in one
//                                  transaction fenced by the lease (the job
//                                  row locked and still RUNNING under this
//                                  claim's token), appends (job id, lease
//                                  token, attempt, clock time) to
//                                  awc_test.effects, which the test makes;
//                                  Complete, or Retry when the fence fails
//   test_stalled_effect {"ms": N} -> on its first attempt sleeps N ms
//                                  without checkpoints (a stall: the lease
//                                  runs out), then, on any attempt, appends
//                                  to awc_test.effects like test_effect but
//                                  with no fence of its own; Complete
#ifndef AWC_TESTS_SUPPORT_TEST_HANDLERS_H_
#define AWC_TESTS_SUPPORT_TEST_HANDLERS_H_

#include "handlers/registry.h"

namespace awc::testing {

// Registers the built-in handlers and the test handlers above.
void RegisterTestHandlers(handlers::Registry& registry);

// What the test daemon of a later release (awc-worker-testd-next) adds:
//   test_next_kind {}           -> Complete {"by": "next"}
void RegisterNextReleaseHandlers(handlers::Registry& registry);

}  // namespace awc::testing

#endif  // AWC_TESTS_SUPPORT_TEST_HANDLERS_H_

// The `gc` subcommand of awc-bench-storage (storage_bench_main.cc).
//
//   gc --tenant T
//       GC cost on a prepared database (storage_gc.py fills it): a
//       warm-up dry run, a timed dry run (plan only), then the dry run's
//       candidates are written to the store (AWC_CAS_URL; content is
//       filler of the recorded size: GC never reads objects) and one full
//       epoch runs with gc::RunSweepWithHooks, its phases timed through its
//       hooks and the checkpoint. Checks that the full epoch deleted exactly
//       the dry run's candidates, from the store and from awc.objects.
#include <cinttypes>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "gc/sweep_testing.h"
#include "options/module_options.h"
#include "storage_bench_common.h"
#include "store/object_store.h"

namespace awc::bench {

namespace {

awc::gc::SweepOptions SweepOptionsFrom(const awc::config::Settings& s,
                                       const std::string& holder) {
  awc::gc::SweepOptions o = awc::options::SweepOptionsFrom(s);
  o.holder = holder;
  return o;
}

}  // namespace

int Gc(const Args& a) {
  StoreSetup setup;
  const awc::config::Settings& settings = setup.settings;
  awc::store::ObjectStore& store = *setup.store;
  auto conn = Connect(settings);
  std::string tenant = a.Str("tenant");
  int64_t objects_before =
      std::stoll(Q(*conn,
                   "SELECT count(*) FROM awc.objects WHERE tenant_id "
                   "= $1",
                   {tenant}));

  // Plan only, twice: the first warms PostgreSQL's buffers after the
  // database was copied from its template.
  double dry_secs[2];
  awc::gc::SweepReport dry;
  for (int i = 0; i < 2; ++i) {
    auto o = SweepOptionsFrom(settings, "bench-dry-" + std::to_string(i));
    o.dry_run = true;
    double t0 = Now();
    auto r = awc::gc::RunSweep(*conn, store, tenant, o, nullptr);
    dry_secs[i] = Now() - t0;
    if (!r.ok()) Die("dry run: " + r.status().message());
    if (r->verdict != awc::gc::SweepReport::Verdict::kDryRun) {
      Die(std::string("dry run verdict ") + awc::gc::VerdictName(r->verdict) +
          ": " + r->reason);
    }
    dry = *r;
  }

  // The objects the full epoch will delete: the dry run's candidates.
  auto cand = conn->Exec(
      "SELECT digest, size FROM awc.gc_candidates WHERE epoch_id = $1 "
      "ORDER BY seq",
      {std::to_string(dry.epoch_id)});
  if (!cand.ok()) Die(cand.status().message());
  std::set<std::string> expected;
  double f0 = Now();
  std::string filler;
  for (int i = 0; i < cand->rows(); ++i) {
    std::string digest = cand->GetString(i, 0);
    Fill(filler, static_cast<uint64_t>(cand->GetInt(i, 1)), 7,
         static_cast<uint64_t>(i));
    auto key = awc::store::MakeKey(tenant, digest);
    if (!key.ok()) Die(key.status().message());
    Check(store.Put(*key, filler), "put candidate");
    expected.insert(digest);
  }
  double fill_secs = Now() - f0;

  // One full epoch, timed phase by phase.
  struct Mark {
    const char* what;
    double t;
  };
  std::vector<Mark> marks;
  auto at = [&](const char* what) {
    marks.push_back({what, Now()});
    return Status::OK();
  };
  awc::gc::SweepHooks hooks;
  hooks.after_plan = [&](int64_t) { return at("plan"); };
  hooks.after_mark = [&](int64_t) { return at("mark"); };
  hooks.after_store_delete = [&](int64_t) { return at("store"); };
  hooks.before_canary_check = [&](int64_t) { return at("canary"); };
  auto o = SweepOptionsFrom(settings, "bench-full");
  o.dry_run = false;
  Cpu c0 = Cpu::Self();
  double t0 = Now();
  auto full = awc::gc::RunSweepWithHooks(
      *conn, store, tenant, o, [&] { return at("checkpoint"); }, hooks);
  double t_end = Now();
  Cpu c1 = Cpu::Self();
  if (!full.ok()) Die("full epoch: " + full.status().message());
  if (full->verdict != awc::gc::SweepReport::Verdict::kCompleted) {
    Die(std::string("full epoch verdict ") +
        awc::gc::VerdictName(full->verdict) + ": " + full->reason);
  }
  // Phases: plan | per batch: mark (renew lock, old-VALIDATING check, the
  // re-check under row locks) | store (select the batch's DELETING rows,
  // DeleteMany) | finish (rows removed, counts) | canary verification |
  // complete (epoch COMPLETED, audit, lock released).
  double plan = 0, mark = 0, store_del = 0, finish = 0, canary = 0;
  double last = t0;
  const char* prev = "start";
  int batches = 0;
  for (const Mark& m : marks) {
    double d = m.t - last;
    std::string w = m.what;
    if (w == "plan") {
      plan += d;
    } else if (w == "mark") {
      mark += d;
      ++batches;
    } else if (w == "store") {
      store_del += d;
    } else if (w == "canary" ||
               (w == "checkpoint" && std::string(prev) == "store")) {
      finish += d;
    } else if (w == "checkpoint" && std::string(prev) == "canary") {
      canary += d;
    } else {
      Die(std::string("unexpected phase order: ") + prev + " -> " + m.what);
    }
    last = m.t;
    prev = m.what;
  }
  double complete = t_end - last;

  // Sanity: exactly the dry run's candidates are gone, store and inventory.
  auto deleted = conn->Exec(
      "SELECT digest FROM awc.gc_candidates WHERE epoch_id = $1 AND state = "
      "'DELETED'",
      {std::to_string(full->epoch_id)});
  if (!deleted.ok()) Die(deleted.status().message());
  std::set<std::string> got;
  for (int i = 0; i < deleted->rows(); ++i)
    got.insert(deleted->GetString(i, 0));
  bool same = got == expected;
  int64_t still_stored = 0;
  for (const std::string& d : expected) {
    auto key = awc::store::MakeKey(tenant, d);
    if (store.Head(*key).ok()) ++still_stored;
  }
  int64_t objects_after =
      std::stoll(Q(*conn,
                   "SELECT count(*) FROM awc.objects WHERE tenant_id "
                   "= $1",
                   {tenant}));

  printf("{\"objects\": %" PRId64 ", \"eligible\": %" PRId64
         ", \"dry_first_seconds\": %.6f, \"dry_seconds\": %.6f, "
         "\"store_fill_seconds\": %.3f, \"full_seconds\": %.6f, "
         "\"plan\": %.6f, \"mark\": %.6f, \"store_delete\": %.6f, "
         "\"finish\": %.6f, \"canary_check\": %.6f, \"complete\": %.6f, "
         "\"batches\": %d, \"deleted\": %" PRId64 ", \"kept\": %" PRId64
         ", \"same_candidates\": %s, \"still_stored\": %" PRId64
         ", \"objects_after\": %" PRId64 ", \"client_cpu\": %.3f}\n",
         objects_before, full->planned, dry_secs[0], dry_secs[1], fill_secs,
         t_end - t0, plan, mark, store_del, finish, canary, complete, batches,
         full->deleted, full->kept, same ? "true" : "false", still_stored,
         objects_after, (c1.user - c0.user) + (c1.sys - c0.sys));
  conn.reset();
  if (!same || still_stored != 0 ||
      objects_after != objects_before - full->deleted) {
    Die("the full epoch did not delete exactly the dry run's candidates");
  }
  return 0;
}

}  // namespace awc::bench

#include "tests/support/cas_fixture.h"

#include <ev.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "catalog/dag.h"
#include "common/env.h"

namespace awc::testing {

CasFixture::CasFixture(TestDatabase& db, store::ObjectStore& store,
                       std::string tenant)
    : db_(db), store_(store), tenant_(std::move(tenant)) {
  db_.Migrate();
  db_.Exec("INSERT INTO awc.tenants (id) VALUES ($1) ON CONFLICT DO NOTHING",
           {tenant_});
}

void CasFixture::PutRaw(const std::string& digest, const std::string& bytes) {
  auto key = store::MakeKey(tenant_, digest);
  ASSERT_TRUE(key.ok()) << key.status().message();
  Status s = store_.Put(*key, bytes);
  ASSERT_TRUE(s.ok()) << s.message();
}

std::string CasFixture::Blob(const std::string& bytes) {
  std::string digest = cas::DigestOf(bytes);
  PutRaw(digest, bytes);
  sizes_[digest] = bytes.size();
  db_.Exec(
      "INSERT INTO awc.objects (tenant_id, digest, size) VALUES ($1, $2, "
      "$3) ON CONFLICT (tenant_id, digest) DO UPDATE SET last_seen_at = "
      "now()",
      {tenant_, digest, std::to_string(bytes.size())});
  return digest;
}

std::string CasFixture::RawObject(const std::string& json) {
  return Blob(json);
}

CasFixture::Entry CasFixture::E(const std::string& name,
                                const std::string& digest) {
  return Entry{name, digest, false, SizeOf(digest)};
}

uint64_t CasFixture::SizeOf(const std::string& digest) const {
  auto it = sizes_.find(digest);
  return it == sizes_.end() ? 0 : it->second;
}

std::string CasFixture::Manifest(std::vector<Entry> entries) {
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.name < b.name; });
  cas::Manifest m;
  for (const Entry& e : entries) {
    cas::ManifestEntry me;
    me.name = e.name;
    me.kind = e.manifest ? cas::ManifestEntry::Kind::kManifest
                         : cas::ManifestEntry::Kind::kBlob;
    me.digest = e.digest;
    me.size = e.size;
    m.entries.push_back(me);
  }
  return Blob(cas::SerializeManifest(m));
}

int64_t CasFixture::Workspace(const std::string& retention_json,
                              const std::string& state) {
  return db_.Int(
      "INSERT INTO awc.workspaces (tenant_id, retention, state) VALUES ($1, "
      "$2::jsonb, $3) RETURNING id",
      {tenant_,
       retention_json.empty() ? db::Param() : db::Param(retention_json),
       state});
}

int64_t CasFixture::Snapshot(const std::string& root, const std::string& state,
                             int64_t workspace) {
  return db_.Int(
      "INSERT INTO awc.snapshots (tenant_id, workspace_id, root_digest, "
      "state) VALUES ($1, $2, $3, $4) RETURNING id",
      {tenant_, workspace ? db::Param(std::to_string(workspace)) : db::Param(),
       root, state});
}

std::string CasFixture::Tree(int files, const std::string& salt) {
  std::vector<Entry> root_entries;
  constexpr int kPerDir = 50;
  for (int d = 0; d * kPerDir < files; ++d) {
    std::vector<Entry> dir;
    for (int f = d * kPerDir; f < std::min(files, (d + 1) * kPerDir); ++f) {
      std::string digest = Blob(salt + "/file-" + std::to_string(f));
      dir.push_back(E("f" + std::to_string(f), digest));
    }
    std::string m = Manifest(dir);
    Entry e = E("d" + std::to_string(d), m);
    e.manifest = true;
    root_entries.push_back(e);
  }
  return Manifest(root_entries);
}

void CasFixture::Age(const std::string& digest, int64_t secs) {
  db_.Exec(
      "UPDATE awc.objects SET created_at = now() - make_interval(secs "
      "=> $3), last_seen_at = now() - make_interval(secs => $3) WHERE "
      "tenant_id = $1 AND digest = $2",
      {tenant_, digest, std::to_string(secs)});
}

void CasFixture::AgeAll(int64_t secs) {
  db_.Exec(
      "UPDATE awc.objects SET created_at = now() - make_interval(secs "
      "=> $2), last_seen_at = now() - make_interval(secs => $2) WHERE "
      "tenant_id = $1",
      {tenant_, std::to_string(secs)});
}

void CasFixture::CountFileEntries() {
  std::unique_ptr<db::PgConn> conn = db_.Connect("awc-test-count");
  for (;;) {
    Result<int64_t> n = catalog::CountFileEntries(*conn, tenant_, 100);
    ASSERT_TRUE(n.ok()) << n.status().message();
    if (*n == 0) return;
  }
}

int64_t CasFixture::CountedRefs(const std::string& digest) {
  CountFileEntries();
  return db_.Int(
      "SELECT refs FROM awc.objects WHERE tenant_id = $1 AND digest = $2",
      {tenant_, digest});
}

TestContext::TestContext(TestDatabase& db, store::ObjectStore& store,
                         handlers::HandlerOptions options)
    : conn_(db.Connect("awc-test-handler")),
      store_(store),
      options_(std::move(options)),
      loop_(ev_loop_new(EVFLAG_AUTO)),
      metrics_(std::move(obs::Metrics::CreateShared().value())) {
  NextJob();
}

TestContext::~TestContext() {
  conn_.reset();
  ev_loop_destroy(loop_);
}

Status TestContext::Pace(uint64_t bytes, uint64_t objects) {
  if (!budget_) budget_.emplace(process::IoBudget::CreateShared().value());
  return process::PaceReads(*budget_, options_.read_budget, bytes, objects,
                            *Env::Default(), [this] { return Checkpoint(); });
}

void TestContext::NextJob() {
  static int64_t next_id = 1000000;
  job_.id = ++next_id;
  job_.lease_token = next_id;
  job_.attempts = 1;
  job_.max_attempts = 5;
}

std::string ResultField(const queue::Outcome& outcome, const char* key) {
  auto doc = ParseJson(outcome.result);
  if (!doc.ok()) return "";
  const json_t* v = json_object_get(doc->get(), key);
  if (v == nullptr) return "";
  if (json_is_string(v)) return json_string_value(v);
  if (json_is_integer(v)) return std::to_string(json_integer_value(v));
  if (json_is_true(v)) return "true";
  if (json_is_false(v)) return "false";
  if (json_is_null(v)) return "null";
  char* text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
  std::string out = text ? text : "";
  free(text);
  return out;
}

}  // namespace awc::testing

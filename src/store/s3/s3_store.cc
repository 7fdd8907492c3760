#include "store/s3/s3_store.h"

#include <algorithm>
#include <cassert>
#include <unordered_map>

#include "digest/ids.h"
#include "digest/sha256.h"
#include "store/s3/curl_ev.h"
#include "store/s3/s3_errors.h"
#include "store/s3/s3_store_testing.h"
#include "store/s3/s3_transfer.h"
#include "store/s3/s3_url.h"
#include "store/s3/s3_xml.h"

namespace awc::store {
namespace {

using s3::Transfer;

constexpr size_t kDeleteBatch = 1000;
constexpr size_t kMaxListResponse = 32 << 20;
constexpr size_t kMaxDeleteResponse = 32 << 20;
constexpr long kMaxConnectTimeoutMs = 10000;

// Keys are validated before any name is built from them (object_store.h).
Status CheckKey(const ObjectKey& key) {
  return MakeKey(key.tenant_id, key.digest).status();
}

class S3Store final : public ObjectStore {
 public:
  S3Store(s3::Addressing addressing, s3::ClientOptions options,
          int max_concurrency, std::unique_ptr<s3::CurlEv> ev, Env* env)
      : addr_(std::move(addressing)),
        options_(std::move(options)),
        max_concurrency_(max_concurrency),
        ev_(std::move(ev)),
        env_(env) {}

  const char* scheme() const override { return "s3"; }
  int parallelism() const override { return max_concurrency_; }

  Status Get(const ObjectKey& key, const ChunkSink& sink) override;
  void GetMany(std::vector<GetRequest>& requests) override;
  Result<uint64_t> Head(const ObjectKey& key) override;
  void HeadMany(std::vector<HeadRequest>& requests) override;
  Status Put(const ObjectKey& key, std::string_view data) override;
  Status PutFile(const ObjectKey& key, const std::string& path) override;
  Result<std::vector<Status>> DeleteMany(
      const std::vector<ObjectKey>& keys) override;
  Status List(const std::string& tenant_id, const std::string& after,
              const ListFn& each) override;
  Result<std::string> ReadMarker() override;
  Status WriteMarker(std::string_view content) override;

  S3Stats stats() const {
    return {ev_->max_in_flight(), ev_->transfers_started(), connections_};
  }

 private:
  std::string What(const char* op, std::string_view name) const {
    return std::string(op) + " " + addr_.bucket() + "/" + std::string(name);
  }
  // Names the digest too, so that messages about an object carry it.
  std::string What(const char* op, const ObjectKey& key,
                   std::string_view name) const {
    return std::string(op) + " " + key.digest + " at " + addr_.bucket() + "/" +
           std::string(name);
  }
  // A transfer of `method` on the object's key, checked first.
  Result<std::unique_ptr<Transfer>> ObjectTransfer(const char* method,
                                                   const ObjectKey& key) const;
  // Runs one transfer to its end.
  Status Run(Transfer& t);
  // Runs n transfers, up to max_concurrency_ at once, started in order:
  // `make(i, &t)` builds the i-th, `finish(i, status, t)` is called once
  // for each as it ends, t null when `make` failed before building it;
  // `finish` may call the store.
  using MakeTransfer =
      std::function<Status(size_t i, std::unique_ptr<Transfer>* t)>;
  using FinishTransfer =
      std::function<void(size_t i, Status result, const Transfer* t)>;
  void RunMany(size_t n, const MakeTransfer& make,
               const FinishTransfer& finish);
  // A HEAD's answer: the object's size from the response (t is the HEAD,
  // non-null when st is OK), kNotFound, or kFailedPrecondition when the
  // bucket itself is missing.
  Result<uint64_t> HeadSize(const ObjectKey& key, Status st, const Transfer* t);
  // Deletes names[begin, end) with one DeleteObjects request, filling
  // out[begin, end); an error hits the whole batch.
  Status DeleteBatch(const std::vector<std::string>& names,
                     const std::vector<size_t>& batch,
                     std::vector<Status>& out);
  // OK when the bucket answers a HEAD.
  Status CheckBucket();

  s3::Addressing addr_;
  s3::ClientOptions options_;
  int max_concurrency_;
  std::unique_ptr<s3::CurlEv> ev_;
  Env* const env_;
  int64_t connections_ = 0;
  bool bucket_seen_ = false;
};

Status S3Store::Run(Transfer& t) {
  CURL* easy = ev_->Acquire();
  Status st = t.Configure(easy);
  if (!st.ok()) {
    ev_->Release(easy);
    return st;
  }
  bool done = false;
  Status result;
  st = ev_->Start(easy, [&](CURLcode rc) {
    result = t.Finish(rc);
    connections_ += t.new_connections();
    ev_->Release(easy);
    done = true;
  });
  if (!st.ok()) {
    ev_->Release(easy);
    return st;
  }
  ev_->Wait([&] { return done; });
  if (!done) return Status::Internal("s3: a transfer was lost");
  if (result.ok()) bucket_seen_ = true;
  return result;
}

Result<std::unique_ptr<Transfer>> S3Store::ObjectTransfer(
    const char* method, const ObjectKey& key) const {
  AWC_RETURN_IF_ERROR(CheckKey(key));
  std::string name = addr_.ObjectName(key);
  return std::make_unique<Transfer>(options_, method, addr_.ObjectUrl(name),
                                    What(method, key, name));
}

Status S3Store::Get(const ObjectKey& key, const ChunkSink& sink) {
  AWC_ASSIGN_OR_RETURN(std::unique_ptr<Transfer> t, ObjectTransfer("GET", key));
  t->StreamTo(&sink);
  return Run(*t);
}

void S3Store::RunMany(size_t n, const MakeTransfer& make,
                      const FinishTransfer& finish) {
  std::vector<std::unique_ptr<Transfer>> transfers(n);
  size_t next = 0;
  size_t finished = 0;
  int active = 0;
  std::function<void()> fill = [&] {
    while (active < max_concurrency_ && next < n) {
      size_t i = next++;
      Status st = make(i, &transfers[i]);
      CURL* easy = nullptr;
      if (st.ok()) {
        easy = ev_->Acquire();
        st = transfers[i]->Configure(easy);
      }
      if (st.ok()) {
        st = ev_->Start(easy, [&, i, easy](CURLcode rc) {
          Status result = transfers[i]->Finish(rc);
          connections_ += transfers[i]->new_connections();
          ev_->Release(easy);
          std::unique_ptr<Transfer> t = std::move(transfers[i]);
          --active;
          ++finished;
          if (result.ok()) bucket_seen_ = true;
          finish(i, std::move(result), t.get());
          fill();
        });
      }
      if (!st.ok()) {
        if (easy != nullptr) ev_->Release(easy);
        std::unique_ptr<Transfer> t = std::move(transfers[i]);
        ++finished;
        finish(i, std::move(st), t.get());
        continue;
      }
      ++active;
    }
  };
  fill();
  ev_->Wait([&] { return finished == n; });
}

void S3Store::GetMany(std::vector<GetRequest>& requests) {
  RunMany(
      requests.size(),
      [&](size_t i, std::unique_ptr<Transfer>* t) -> Status {
        AWC_ASSIGN_OR_RETURN(*t, ObjectTransfer("GET", requests[i].key));
        (*t)->StreamTo(&requests[i].sink);
        return Status::OK();
      },
      [&](size_t i, Status result, const Transfer*) {
        requests[i].done(std::move(result));
      });
}

void S3Store::HeadMany(std::vector<HeadRequest>& requests) {
  RunMany(
      requests.size(),
      [&](size_t i, std::unique_ptr<Transfer>* t) -> Status {
        AWC_ASSIGN_OR_RETURN(*t, ObjectTransfer("HEAD", requests[i].key));
        return Status::OK();
      },
      [&](size_t i, Status result, const Transfer* t) {
        requests[i].done(HeadSize(requests[i].key, std::move(result), t));
      });
}

Status S3Store::CheckBucket() {
  Transfer t(options_, "HEAD", addr_.BucketUrl(""), What("HEAD", ""));
  Status st = Run(t);
  if (st.IsNotFound()) {
    return Status::FailedPrecondition("s3 HEAD " + addr_.bucket() +
                                      ": the bucket does not exist");
  }
  return st;
}

Result<uint64_t> S3Store::Head(const ObjectKey& key) {
  AWC_ASSIGN_OR_RETURN(std::unique_ptr<Transfer> t,
                       ObjectTransfer("HEAD", key));
  Status st = Run(*t);
  return HeadSize(key, std::move(st), t.get());
}

Result<uint64_t> S3Store::HeadSize(const ObjectKey& key, Status st,
                                   const Transfer* t) {
  if (st.IsNotFound() && !bucket_seen_) {
    AWC_RETURN_IF_ERROR(CheckBucket());
  }
  if (!st.ok()) return st;
  if (t->content_length() < 0) {
    return Status::FailedPrecondition("s3 " +
                                      What("HEAD", key, addr_.ObjectName(key)) +
                                      ": the response has no Content-Length");
  }
  return static_cast<uint64_t>(t->content_length());
}

Status S3Store::Put(const ObjectKey& key, std::string_view data) {
  AWC_ASSIGN_OR_RETURN(std::unique_ptr<Transfer> t, ObjectTransfer("PUT", key));
  t->SetBody(data);
  t->AddHeader("Content-Type: application/octet-stream");
  return Run(*t);
}

Status S3Store::PutFile(const ObjectKey& key, const std::string& path) {
  AWC_RETURN_IF_ERROR(CheckKey(key));
  std::string name = addr_.ObjectName(key);
  std::string what = What("PUT", key, name);
  Result<std::unique_ptr<RandomAccessFile>> file =
      env_->NewRandomAccessFile(path);
  if (!file.ok()) {
    return Status::IoError("s3 " + what + ": " + file.status().message());
  }
  if ((*file)->size() == 0) {
    // No bytes to hold back until verified: checked before sending.
    char extra;
    Result<size_t> more = (*file)->ReadAt(0, &extra, 1);
    if (!more.ok()) {
      return Status::IoError("s3 " + what + ": " + more.status().message());
    }
    if (*more != 0 || "sha256:" + digest::Sha256::HexOf("") != key.digest) {
      return ContentChanged(key, path);
    }
  }
  Transfer t(options_, "PUT", addr_.ObjectUrl(name), what);
  t.SetFileBody(file->get(), key.digest.substr(7));
  t.AddHeader("Content-Type: application/octet-stream");
  Status st = Run(t);
  return st.IsCorruption() ? ContentChanged(key, path) : st;
}

Status S3Store::DeleteBatch(const std::vector<std::string>& names,
                            const std::vector<size_t>& batch,
                            std::vector<Status>& out) {
  std::unordered_map<std::string, std::vector<size_t>> where;
  std::vector<std::string> unique;
  for (size_t i : batch) {
    auto [it, fresh] = where.try_emplace(names[i]);
    if (fresh) unique.push_back(names[i]);
    it->second.push_back(i);
  }
  std::string body = s3::BuildDeleteRequest(unique, /*quiet=*/true);
  std::string what =
      What("DELETE", "(" + std::to_string(unique.size()) + " objects)");
  Transfer t(options_, "POST",
             addr_.BucketUrl(s3::CanonicalQuery({{"delete", ""}})), what);
  t.SetBody(body);
  t.AddHeader("Content-Type: application/xml");
  t.AddHeader("Content-MD5: " + s3::Md5Base64(body));
  std::string response;
  t.CollectTo(&response, kMaxDeleteResponse);
  AWC_RETURN_IF_ERROR(Run(t));
  Result<s3::DeleteResult> parsed = s3::ParseDeleteResult(response);
  if (!parsed.ok()) {
    return Status::FailedPrecondition("s3 " + what + ": " +
                                      parsed.status().message());
  }
  for (size_t i : batch) out[i] = Status::OK();
  for (const s3::DeleteResult::Error& e : parsed->errors) {
    auto it = where.find(e.key);
    if (it == where.end() || e.code == "NoSuchKey") continue;
    Status st = s3::ClassifyS3Code(What("DELETE", e.key), e.code, e.message);
    for (size_t i : it->second) out[i] = st;
  }
  return Status::OK();
}

Result<std::vector<Status>> S3Store::DeleteMany(
    const std::vector<ObjectKey>& keys) {
  std::vector<Status> out(keys.size());
  std::vector<std::string> names(keys.size());
  std::vector<size_t> valid;
  for (size_t i = 0; i < keys.size(); ++i) {
    out[i] = CheckKey(keys[i]);
    if (!out[i].ok()) continue;
    names[i] = addr_.ObjectName(keys[i]);
    valid.push_back(i);
  }
  size_t batches = 0;
  size_t failed = 0;
  Status first_error;
  for (size_t begin = 0; begin < valid.size(); begin += kDeleteBatch) {
    size_t end = std::min(valid.size(), begin + kDeleteBatch);
    std::vector<size_t> batch(valid.begin() + static_cast<ptrdiff_t>(begin),
                              valid.begin() + static_cast<ptrdiff_t>(end));
    ++batches;
    Status st = DeleteBatch(names, batch, out);
    if (st.ok()) continue;
    for (size_t i : batch) out[i] = st;
    if (failed++ == 0) first_error = st;
  }
  if (batches > 0 && failed == batches && valid.size() == keys.size()) {
    return first_error;
  }
  return out;
}

Result<std::string> S3Store::ReadMarker() {
  std::string name = addr_.RootName(kMarkerName);
  Transfer t(options_, "GET", addr_.ObjectUrl(name), What("GET", name));
  std::string body;
  t.CollectTo(&body, kMaxMarkerBytes);
  AWC_RETURN_IF_ERROR(Run(t));
  return body;
}

Status S3Store::WriteMarker(std::string_view content) {
  std::string name = addr_.RootName(kMarkerName);
  Transfer t(options_, "PUT", addr_.ObjectUrl(name), What("PUT", name));
  t.SetBody(content);
  t.AddHeader("Content-Type: application/json");
  return Run(t);
}

Status S3Store::List(const std::string& tenant_id, const std::string& after,
                     const ListFn& each) {
  if (!digest::IsValidTenantId(tenant_id)) {
    return Status::InvalidArgument("malformed tenant id");
  }
  // The whole of the tenant's prefix, so that keys that are not objects'
  // are seen too; S3 lists in byte order, which for object keys is the
  // digests'.
  std::string objects = addr_.TenantPrefix(tenant_id);
  std::string tenant_root = addr_.RootName(tenant_id + "/");
  std::string start_after;
  if (!after.empty()) {
    AWC_ASSIGN_OR_RETURN(ObjectKey from, MakeKey(tenant_id, after));
    start_after = addr_.RootName(RelativeKey(from));
  }
  std::string what = What("LIST", tenant_root);
  std::string token;
  for (;;) {
    std::vector<std::pair<std::string, std::string>> params = {
        {"list-type", "2"}, {"prefix", tenant_root}};
    if (!token.empty()) {
      params.emplace_back("continuation-token", token);
    } else if (!start_after.empty()) {
      params.emplace_back("start-after", start_after);
    }
    std::string body;
    Transfer t(options_, "GET", addr_.BucketUrl(s3::CanonicalQuery(params)),
               what);
    t.CollectTo(&body, kMaxListResponse);
    AWC_RETURN_IF_ERROR(Run(t));
    Result<s3::ListPage> page = s3::ParseListPage(body);
    if (!page.ok()) {
      return Status::FailedPrecondition("s3 " + what + ": " +
                                        page.status().message());
    }
    for (const s3::ListPage::Object& obj : page->objects) {
      if (!obj.key.starts_with(tenant_root)) continue;
      ListedKey k;
      k.digest = s3::DigestFromListedName(objects, obj.key).value_or("");
      k.name = obj.key.substr(tenant_root.size());
      k.size = obj.size;
      k.modified = obj.modified;
      AWC_RETURN_IF_ERROR(each(k));
    }
    if (!page->truncated) return Status::OK();
    if (page->next_token.empty() || page->next_token == token) {
      return Status::FailedPrecondition(
          "s3 " + what +
          ": a truncated listing without a new continuation token");
    }
    token = page->next_token;
  }
}

}  // namespace

Result<std::unique_ptr<ObjectStore>> NewS3Store(const StoreUrl& url,
                                                const S3Options& options,
                                                struct ev_loop* loop,
                                                Env* env) {
  assert(url.scheme == StoreUrl::Scheme::kS3 && !url.bucket.empty());
  assert(options.access_key_id.empty() == options.secret_access_key.empty());
  assert(options.max_concurrency >= 1 && options.timeout_ms >= 1);
  Result<s3::Endpoint> endpoint = s3::ParseEndpoint(options.endpoint);
  if (!endpoint.ok()) return endpoint.status().WithContext("s3 endpoint");
  s3::ClientOptions client;
  client.access_key_id = options.access_key_id;
  client.secret_access_key = options.secret_access_key;
  client.region = options.region;
  client.timeout_ms = options.timeout_ms;
  client.connect_timeout_ms = std::min(client.timeout_ms, kMaxConnectTimeoutMs);
  AWC_ASSIGN_OR_RETURN(
      std::unique_ptr<s3::CurlEv> ev,
      s3::CurlEv::Create(loop, std::max(4, options.max_concurrency)));
  s3::Addressing addressing(std::move(*endpoint), url.bucket, url.prefix,
                            options.force_path_style);
  return std::unique_ptr<ObjectStore>(
      new S3Store(std::move(addressing), std::move(client),
                  options.max_concurrency, std::move(ev), env));
}

S3Stats GetS3Stats(const ObjectStore& store) {
  const auto* s3 = dynamic_cast<const S3Store*>(&store);
  return s3 == nullptr ? S3Stats{} : s3->stats();
}

}  // namespace awc::store

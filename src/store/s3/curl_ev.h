// CurlEv: libcurl's multi-socket API driven by a libev loop.
//
// libcurl tells which sockets to watch (CURLMOPT_SOCKETFUNCTION, one ev_io
// each) and when to time out (CURLMOPT_TIMERFUNCTION, one ev_timer); the
// watchers hand the events back with curl_multi_socket_action(), and
// finished transfers are collected with curl_multi_info_read().
//
// Contract:
//  - Start() adds a configured easy handle; its `done` runs exactly once,
//    from the loop, after the handle has left the multi handle, and never
//    inside a libcurl callback, so it may start transfers or call Wait()
//    again (nested runs of the loop are allowed).
//  - Wait() runs the loop (ev_run EVRUN_ONCE) until its predicate holds.
//    Other watchers of the same loop run too: this nested run is how the
//    single-threaded worker blocks on the store.
//  - Connections live in the multi handle's cache and are reused across
//    transfers; easy handles are pooled (Acquire/Release) for the same
//    reason and to keep their DNS and TLS session caches warm.
//  - Single-threaded; the loop must outlive the driver.
#ifndef AWC_STORE_S3_CURL_EV_H_
#define AWC_STORE_S3_CURL_EV_H_

#include <curl/curl.h>
#include <ev.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include "common/status.h"

namespace awc::store::s3 {

class CurlEv {
 public:
  using Done = std::function<void(CURLcode result)>;

  // `max_connections` bounds the idle connection cache.
  static Result<std::unique_ptr<CurlEv>> Create(struct ev_loop* loop,
                                                long max_connections);
  ~CurlEv();
  CurlEv(const CurlEv&) = delete;
  CurlEv& operator=(const CurlEv&) = delete;

  // A fresh easy handle (reset, from the pool when one is idle).
  CURL* Acquire();
  // Returns a handle that is not in a transfer to the pool.
  void Release(CURL* easy);

  // Starts the transfer configured on `easy`; `done` runs when it ends.
  Status Start(CURL* easy, Done done);

  // Runs the loop until `finished()` holds.
  void Wait(const std::function<bool()>& finished);

  // The most transfers that ran at once since the driver was created.
  int max_in_flight() const { return max_in_flight_; }
  int64_t transfers_started() const { return started_; }

 private:
  struct SocketWatch;

  CurlEv(struct ev_loop* loop, CURLM* multi);

  static int OnSocket(CURL* easy, curl_socket_t s, int what, void* userp,
                      void* socketp);
  static int OnTimerChange(CURLM* multi, long timeout_ms, void* userp);
  static void OnIo(struct ev_loop* loop, ev_io* w, int revents);
  static void OnTimeout(struct ev_loop* loop, ev_timer* w, int revents);

  void Action(curl_socket_t s, int ev_bitmask);
  void CollectFinished();

  struct ev_loop* loop_;
  CURLM* multi_;
  ev_timer timer_;
  std::unordered_map<curl_socket_t, SocketWatch*> sockets_;
  std::unordered_map<CURL*, Done> active_;
  std::vector<CURL*> idle_;
  int in_flight_ = 0;
  int max_in_flight_ = 0;
  int64_t started_ = 0;
};

}  // namespace awc::store::s3

#endif  // AWC_STORE_S3_CURL_EV_H_

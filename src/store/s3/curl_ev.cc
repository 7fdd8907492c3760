#include "store/s3/curl_ev.h"

#include <mutex>

namespace awc::store::s3 {
namespace {

constexpr size_t kMaxIdleHandles = 64;

Status GlobalInit() {
  static std::once_flag once;
  static CURLcode rc = CURLE_OK;
  std::call_once(once, [] { rc = curl_global_init(CURL_GLOBAL_DEFAULT); });
  if (rc != CURLE_OK) {
    return Status::Internal(std::string("libcurl initialisation failed: ") +
                            curl_easy_strerror(rc));
  }
  return Status::OK();
}

}  // namespace

struct CurlEv::SocketWatch {
  ev_io io;
  CurlEv* owner;
};

Result<std::unique_ptr<CurlEv>> CurlEv::Create(struct ev_loop* loop,
                                               long max_connections) {
  if (loop == nullptr) return Status::Internal("s3: no event loop");
  AWC_RETURN_IF_ERROR(GlobalInit());
  CURLM* multi = curl_multi_init();
  if (multi == nullptr) return Status::Internal("s3: curl_multi_init failed");
  std::unique_ptr<CurlEv> ev(new CurlEv(loop, multi));
  curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, &CurlEv::OnSocket);
  curl_multi_setopt(multi, CURLMOPT_SOCKETDATA, ev.get());
  curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, &CurlEv::OnTimerChange);
  curl_multi_setopt(multi, CURLMOPT_TIMERDATA, ev.get());
  curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, max_connections);
  return ev;
}

CurlEv::CurlEv(struct ev_loop* loop, CURLM* multi)
    : loop_(loop), multi_(multi) {
  ev_timer_init(&timer_, &CurlEv::OnTimeout, 0., 0.);
  timer_.data = this;
}

CurlEv::~CurlEv() {
  for (auto& [easy, done] : active_) {
    curl_multi_remove_handle(multi_, easy);
    curl_easy_cleanup(easy);
  }
  active_.clear();
  // May still report sockets and timers: the callbacks need this object.
  curl_multi_cleanup(multi_);
  for (CURL* easy : idle_) curl_easy_cleanup(easy);
  for (auto& [fd, w] : sockets_) {
    ev_io_stop(loop_, &w->io);
    delete w;
  }
  ev_timer_stop(loop_, &timer_);
}

CURL* CurlEv::Acquire() {
  if (idle_.empty()) return curl_easy_init();
  CURL* easy = idle_.back();
  idle_.pop_back();
  return easy;
}

void CurlEv::Release(CURL* easy) {
  if (easy == nullptr) return;
  if (idle_.size() >= kMaxIdleHandles) {
    curl_easy_cleanup(easy);
    return;
  }
  curl_easy_reset(easy);
  idle_.push_back(easy);
}

Status CurlEv::Start(CURL* easy, Done done) {
  active_[easy] = std::move(done);
  CURLMcode rc = curl_multi_add_handle(multi_, easy);
  if (rc != CURLM_OK) {
    active_.erase(easy);
    return Status::Internal(std::string("s3: cannot start a transfer: ") +
                            curl_multi_strerror(rc));
  }
  ++started_;
  ++in_flight_;
  if (in_flight_ > max_in_flight_) max_in_flight_ = in_flight_;
  return Status::OK();
}

void CurlEv::Wait(const std::function<bool()>& finished) {
  while (!finished() && in_flight_ > 0) ev_run(loop_, EVRUN_ONCE);
}

int CurlEv::OnSocket(CURL* /*easy*/, curl_socket_t s, int what, void* userp,
                     void* socketp) {
  auto* self = static_cast<CurlEv*>(userp);
  auto* w = static_cast<SocketWatch*>(socketp);
  if (what == CURL_POLL_REMOVE) {
    if (w != nullptr) {
      ev_io_stop(self->loop_, &w->io);
      self->sockets_.erase(s);
      delete w;
    }
    return 0;
  }
  int events = ((what & CURL_POLL_IN) ? EV_READ : 0) |
               ((what & CURL_POLL_OUT) ? EV_WRITE : 0);
  if (w == nullptr) {
    auto stale = self->sockets_.find(s);
    if (stale != self->sockets_.end()) {
      ev_io_stop(self->loop_, &stale->second->io);
      delete stale->second;
      self->sockets_.erase(stale);
    }
    w = new SocketWatch;
    w->owner = self;
    ev_io_init(&w->io, &CurlEv::OnIo, s, events);
    w->io.data = w;
    self->sockets_[s] = w;
    curl_multi_assign(self->multi_, s, w);
  } else {
    ev_io_stop(self->loop_, &w->io);
    ev_io_set(&w->io, s, events);
  }
  ev_io_start(self->loop_, &w->io);
  return 0;
}

int CurlEv::OnTimerChange(CURLM* /*multi*/, long timeout_ms, void* userp) {
  auto* self = static_cast<CurlEv*>(userp);
  ev_timer_stop(self->loop_, &self->timer_);
  if (timeout_ms >= 0) {
    ev_timer_set(&self->timer_, static_cast<double>(timeout_ms) / 1000.0, 0.);
    ev_timer_start(self->loop_, &self->timer_);
  }
  return 0;
}

void CurlEv::OnIo(struct ev_loop* /*loop*/, ev_io* w, int revents) {
  auto* watch = static_cast<SocketWatch*>(w->data);
  CurlEv* self = watch->owner;
  curl_socket_t fd = w->fd;  // `watch` may be gone once libcurl has run
  int action = ((revents & EV_READ) ? CURL_CSELECT_IN : 0) |
               ((revents & EV_WRITE) ? CURL_CSELECT_OUT : 0);
  self->Action(fd, action);
}

void CurlEv::OnTimeout(struct ev_loop* /*loop*/, ev_timer* w, int /*revents*/) {
  static_cast<CurlEv*>(w->data)->Action(CURL_SOCKET_TIMEOUT, 0);
}

void CurlEv::Action(curl_socket_t s, int ev_bitmask) {
  int running = 0;
  curl_multi_socket_action(multi_, s, ev_bitmask, &running);
  CollectFinished();
}

void CurlEv::CollectFinished() {
  int left = 0;
  while (CURLMsg* m = curl_multi_info_read(multi_, &left)) {
    if (m->msg != CURLMSG_DONE) continue;
    CURL* easy = m->easy_handle;
    CURLcode result = m->data.result;
    curl_multi_remove_handle(multi_, easy);
    auto it = active_.find(easy);
    if (it == active_.end()) continue;
    Done done = std::move(it->second);
    active_.erase(it);
    --in_flight_;
    done(result);
  }
}

}  // namespace awc::store::s3

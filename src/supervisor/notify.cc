#include "supervisor/notify.h"

#include <systemd/sd-daemon.h>
#include <time.h>

#include <cstdint>
#include <cstdlib>

#include "obs/log.h"

namespace awc::supervisor {

Notifier::Notifier() : enabled_(getenv("NOTIFY_SOCKET") != nullptr) {
  uint64_t usec = 0;
  if (enabled_ && sd_watchdog_enabled(0, &usec) > 0 && usec > 0) {
    watchdog_interval_ = static_cast<double>(usec) / 2e6;
  }
}

void Notifier::Send(const std::string& message) {
  if (!enabled_) return;
  int rc = sd_notify(0, message.c_str());
  if (rc < 0) {
    obs::Warn("supervisor", "sd_notify failed").Int("errno", -rc).Emit();
  }
}

void Notifier::Ready(const std::string& status) {
  last_status_ = status;
  Send("READY=1\nSTATUS=" + status);
}

void Notifier::Status(const std::string& status) {
  if (status == last_status_) return;
  last_status_ = status;
  Send("STATUS=" + status);
}

void Notifier::Stopping(const std::string& status) {
  last_status_ = status;
  Send("STOPPING=1\nSTATUS=" + status);
}

void Notifier::Reloading(const std::string& status) {
  last_status_ = status;
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  uint64_t usec = static_cast<uint64_t>(now.tv_sec) * 1000000 +
                  static_cast<uint64_t>(now.tv_nsec) / 1000;
  Send("RELOADING=1\nMONOTONIC_USEC=" + std::to_string(usec) +
       "\nSTATUS=" + status);
}

void Notifier::Watchdog() {
  if (watchdog_interval_ > 0) Send("WATCHDOG=1");
}

void Notifier::ExtendTimeout(double secs) {
  if (secs <= 0) return;
  Send("EXTEND_TIMEOUT_USEC=" +
       std::to_string(static_cast<uint64_t>(secs * 1e6)));
}

}  // namespace awc::supervisor

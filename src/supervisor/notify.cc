#include "supervisor/notify.h"

#include <systemd/sd-daemon.h>

#include <cstdlib>

#include "obs/log.h"

namespace awc::supervisor {

Notifier::Notifier() : enabled_(getenv("NOTIFY_SOCKET") != nullptr) {}

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

}  // namespace awc::supervisor

// systemd readiness notification (sd_notify(3)), a no-op without
// NOTIFY_SOCKET. READY=1 once migrations ran and all workers started,
// STATUS=<one line> as things change, STOPPING=1 when shutdown begins.
#ifndef AWC_SUPERVISOR_NOTIFY_H_
#define AWC_SUPERVISOR_NOTIFY_H_

#include <string>

namespace awc::supervisor {

class Notifier {
 public:
  Notifier();
  bool enabled() const { return enabled_; }
  void Ready(const std::string& status);
  void Status(const std::string& status);  // sent only when it changed
  void Stopping(const std::string& status);

 private:
  void Send(const std::string& message);
  bool enabled_;
  std::string last_status_;
};

}  // namespace awc::supervisor

#endif  // AWC_SUPERVISOR_NOTIFY_H_

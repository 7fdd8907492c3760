// systemd notification (sd_notify(3)) from the master, a no-op without
// NOTIFY_SOCKET: READY=1 once migrations ran and all workers started,
// STATUS=<one line> as things change, RELOADING=1 then READY=1 around a
// configuration reload, STOPPING=1 when shutdown begins,
// WATCHDOG=1 while the master's loop runs (WatchdogSec=), and
// EXTEND_TIMEOUT_USEC= while a stop waits for jobs in flight.
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
  // A reload began; Ready() says it ended.
  void Reloading(const std::string& status);

  // How often WATCHDOG=1 must be sent: half of WatchdogSec=, or 0 when
  // systemd does not watch this process (WATCHDOG_USEC/WATCHDOG_PID).
  double watchdog_interval() const { return watchdog_interval_; }
  void Watchdog();
  // The current state (starting, stopping) may run `secs` past its
  // timeout; sent again before that to extend further.
  void ExtendTimeout(double secs);

 private:
  void Send(const std::string& message);
  bool enabled_;
  double watchdog_interval_ = 0;
  std::string last_status_;
};

}  // namespace awc::supervisor

#endif  // AWC_SUPERVISOR_NOTIFY_H_

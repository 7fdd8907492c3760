// Status and Result<T>: the one error type of awc-worker.
//
// Every fallible call returns a Status (or a Result<T>, which is a Status or a
// value). A Status carries a code that callers branch on and a message meant
// for an operator: it is printed as is after "awc-worker: ", so it must read
// as a sentence fragment and must never contain a secret (see redact.h).
//
// Codes that matter to callers:
//   kTransient      - worth retrying later (network, timeouts, 5xx, lost
//                     database connection). A handler maps it to Retry.
//   kNotFound       - definitive absence (store object, database row).
//   kInvalidArgument- bad input: settings, payloads, manifests.
//   kCorruption     - data that does not match its digest or format.
//   kFailedPrecondition - state does not allow the operation (a refused
//                     migration, a lock held elsewhere).
#ifndef AWC_COMMON_STATUS_H_
#define AWC_COMMON_STATUS_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace awc {

class [[nodiscard]] Status {
 public:
  enum class Code {
    kOk = 0,
    kInvalidArgument,
    kNotFound,
    kTransient,
    kCorruption,
    kFailedPrecondition,
    kIoError,
    kInternal,
  };

  Status() = default;

  static Status OK() { return Status(); }
  static Status InvalidArgument(std::string msg) {
    return Status(Code::kInvalidArgument, std::move(msg));
  }
  static Status NotFound(std::string msg) {
    return Status(Code::kNotFound, std::move(msg));
  }
  static Status Transient(std::string msg) {
    return Status(Code::kTransient, std::move(msg));
  }
  static Status Corruption(std::string msg) {
    return Status(Code::kCorruption, std::move(msg));
  }
  static Status FailedPrecondition(std::string msg) {
    return Status(Code::kFailedPrecondition, std::move(msg));
  }
  static Status IoError(std::string msg) {
    return Status(Code::kIoError, std::move(msg));
  }
  static Status Internal(std::string msg) {
    return Status(Code::kInternal, std::move(msg));
  }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  bool IsTransient() const { return code_ == Code::kTransient; }
  bool IsNotFound() const { return code_ == Code::kNotFound; }
  bool IsInvalidArgument() const { return code_ == Code::kInvalidArgument; }
  bool IsCorruption() const { return code_ == Code::kCorruption; }
  bool IsFailedPrecondition() const {
    return code_ == Code::kFailedPrecondition;
  }

  // The operator-facing message; empty for OK.
  const std::string& message() const { return message_; }

  // "OK" or the message; for tests and debug output.
  std::string ToString() const { return ok() ? "OK" : message_; }

  // Returns a copy whose message is "<context>: <message>", same code.
  Status WithContext(std::string_view context) const {
    if (ok()) return *this;
    return Status(code_, std::string(context) + ": " + message_);
  }

  // Short lowercase name of the code ("transient", "not found", ...).
  static const char* CodeName(Code code);

 private:
  Status(Code code, std::string msg) : code_(code), message_(std::move(msg)) {}

  Code code_ = Code::kOk;
  std::string message_;
};

// A value of T, or the Status explaining why there is none.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {  // NOLINT
    if (status_.ok()) status_ = Status::Internal("result built from OK status");
  }
  Result(const Result&) = default;
  Result(Result&&) noexcept = default;
  Result& operator=(const Result&) = default;
  Result& operator=(Result&&) noexcept = default;

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }

  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }

 private:
  std::optional<T> value_;
  Status status_;  // OK exactly when value_ holds a value
};

}  // namespace awc

#define AWC_CONCAT_INNER_(a, b) a##b
#define AWC_CONCAT_(a, b) AWC_CONCAT_INNER_(a, b)

// Returns early from the enclosing function when `expr` is not OK. Each
// expansion names its variable uniquely, so the macros nest (for example
// inside a lambda passed to another macro's argument).
#define AWC_RETURN_IF_ERROR(expr) \
  AWC_RETURN_IF_ERROR_IMPL_(AWC_CONCAT_(awc_status_, __COUNTER__), expr)
#define AWC_RETURN_IF_ERROR_IMPL_(var, expr) \
  do {                                       \
    ::awc::Status var = (expr);              \
    if (!var.ok()) return var;               \
  } while (0)

// Declares `lhs` from a Result-returning `rexpr`, or returns its Status.
#define AWC_ASSIGN_OR_RETURN(lhs, rexpr) \
  AWC_ASSIGN_OR_RETURN_IMPL_(AWC_CONCAT_(awc_result_, __COUNTER__), lhs, rexpr)
#define AWC_ASSIGN_OR_RETURN_IMPL_(var, lhs, rexpr) \
  auto var = (rexpr);                               \
  if (!var.ok()) return var.status();               \
  lhs = std::move(var).value()

#endif  // AWC_COMMON_STATUS_H_

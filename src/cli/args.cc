#include "cli/args.h"

#include "common/numbers.h"

namespace awc::cli {
namespace {

const Option* Find(const std::vector<Option>& options, std::string_view name) {
  for (const Option& o : options) {
    if (name == o.name && !o.letter_only) return &o;
  }
  return nullptr;
}

const Option* FindLetter(const std::vector<Option>& options, char letter) {
  for (const Option& o : options) {
    if (o.letter != 0 && o.letter == letter) return &o;
  }
  return nullptr;
}

}  // namespace

bool ParsedArgs::Has(std::string_view name) const {
  return options.find(name) != options.end();
}

std::string ParsedArgs::Get(std::string_view name) const {
  auto it = options.find(name);
  return it == options.end() || it->second.empty() ? "" : it->second.back();
}

std::vector<std::string> ParsedArgs::GetAll(std::string_view name) const {
  auto it = options.find(name);
  return it == options.end() ? std::vector<std::string>() : it->second;
}

std::vector<Option> AllOptions(const Command& command) {
  std::vector<Option> all = command.options;
  if (command.json) {
    all.push_back({"json", nullptr, "print one JSON document instead of text"});
  }
  if (command.changes) {
    all.push_back({"yes", nullptr,
                   "do not ask before changing a production database", false,
                   'y'});
  }
  all.push_back({"help", nullptr, "show this help", false, 'h'});
  return all;
}

Result<ParsedArgs> ParseArgs(const std::vector<Option>& options,
                             const std::vector<std::string>& args) {
  ParsedArgs out;
  bool only_positional = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (only_positional || arg == "-" || !arg.starts_with("-")) {
      out.positional.push_back(arg);
      continue;
    }
    if (arg == "--") {
      only_positional = true;
      continue;
    }
    std::string name = arg;
    std::string value;
    bool joined = false;
    const Option* o = nullptr;
    if (!name.starts_with("--")) {
      // "-x": a letter, alone.
      if (name.size() == 2) o = FindLetter(options, name[1]);
      if (o == nullptr) return Status::InvalidArgument("unknown option " + arg);
    } else {
      size_t eq = name.find('=');
      if (eq != std::string::npos) {
        value = name.substr(eq + 1);
        name = name.substr(0, eq);
        joined = true;
      }
      o = Find(options, std::string_view(name).substr(2));
      if (o == nullptr) {
        return Status::InvalidArgument("unknown option " + name);
      }
    }
    if (o->value == nullptr && joined) {
      return Status::InvalidArgument(name + " takes no value");
    }
    if (o->value != nullptr && !joined) {
      if (i + 1 >= args.size()) {
        return Status::InvalidArgument(name + " needs a value (" + o->value +
                                       ")");
      }
      value = args[++i];
    }
    std::vector<std::string>& values = out.options[o->name];
    if (!values.empty() && !o->repeatable) {
      return Status::InvalidArgument(name + " is given more than once");
    }
    values.push_back(value);
  }
  return out;
}

Result<int64_t> ParseCount(std::string_view text, std::string_view what,
                           int64_t min, int64_t max) {
  Result<int64_t> v = ParseInt64(text);
  if (!v.ok() || *v < min || *v > max) {
    return Status::InvalidArgument(
        std::string(what) + " needs an integer from " + std::to_string(min) +
        " to " + std::to_string(max) + ", not \"" + std::string(text) + "\"");
  }
  return *v;
}

Result<std::vector<int64_t>> ParseIds(const std::vector<std::string>& texts) {
  std::vector<int64_t> ids;
  for (const std::string& t : texts) {
    Result<int64_t> v = ParseInt64(t);
    if (!v.ok() || *v < 1 || t.starts_with('+')) {
      return Status::InvalidArgument("\"" + t + "\" is not a job id");
    }
    ids.push_back(*v);
  }
  return ids;
}

Result<double> ParseDuration(std::string_view text) {
  std::string_view digits = text;
  double unit = 1;
  if (!text.empty()) {
    switch (text.back()) {
      case 's':
        unit = 1;
        break;
      case 'm':
        unit = 60;
        break;
      case 'h':
        unit = 3600;
        break;
      case 'd':
        unit = 86400;
        break;
      case 'w':
        unit = 7 * 86400;
        break;
      default:
        unit = 0;
    }
    if (unit != 0) digits.remove_suffix(1);
  }
  if (unit == 0) unit = 1;
  // At most 12 digits: no overflow, even in weeks.
  bool ok = !digits.empty() && digits.size() <= 12;
  for (char c : digits) ok = ok && c >= '0' && c <= '9';
  int64_t n = 0;
  if (ok) {
    Result<int64_t> v = ParseInt64(digits);
    ok = v.ok() && *v >= 1;
    if (ok) n = *v;
  }
  if (!ok) {
    return Status::InvalidArgument(
        "\"" + std::string(text) +
        "\" is not a duration (a whole number with s, m, h, d or w: 90s, "
        "15m, 12h, 7d, 2w)");
  }
  if (static_cast<double>(n) * unit > static_cast<double>(kMaxDurationSecs)) {
    return Status::InvalidArgument(
        "\"" + std::string(text) +
        "\" is longer than the longest duration accepted, " +
        std::to_string(kMaxDurationSecs / 86400) + "d (100 years)");
  }
  return static_cast<double>(n) * unit;
}

}  // namespace awc::cli

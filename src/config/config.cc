#include "config/config.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <variant>

#include "common/redact.h"
#include "config/ini_file.h"
#include "config/setting_spec.h"

namespace awc::config {

EnvLookup ProcessEnv() {
  return [](const char* name) -> const char* { return getenv(name); };
}

Result<Config> Config::Load(const std::string& config_path,
                            const EnvLookup& env) {
  Config cfg;
  cfg.sources_.assign(Specs().size(), "default");
  std::string path = config_path;
  if (path.empty() && env("AWC_CONFIG") != nullptr) path = env("AWC_CONFIG");
  if (!path.empty()) {
    AWC_RETURN_IF_ERROR(LoadIni(path, &cfg.settings_, &cfg.sources_));
    cfg.settings_.config_file = path;
  }
  for (size_t n = 0; n < Specs().size(); ++n) {
    const Spec& spec = Specs()[n];
    const char* direct = env(spec.env);
    std::string file_var = std::string(spec.env) + "_FILE";
    const char* via_file = spec.file_variant ? env(file_var.c_str()) : nullptr;
    if (direct != nullptr && via_file != nullptr) {
      return Status::InvalidArgument(std::string(spec.env) + ": set " +
                                     spec.env + " or " + file_var +
                                     ", not both");
    }
    std::string text;
    if (via_file != nullptr) {
      Result<std::string> r = ReadSecretFile(via_file);
      if (!r.ok()) return r.status().WithContext(file_var);
      text = *r;
    } else if (direct != nullptr) {
      text = direct;
    } else {
      continue;
    }
    Status s = Apply(spec, text, &cfg.settings_);
    if (!s.ok()) return s.WithContext(spec.env);
    cfg.sources_[n] = "environment";
  }
  const Settings& s = cfg.settings_;
  if (s.gc_canary_size > s.gc_batch_size) {
    return Status::InvalidArgument(
        "AWC_GC_CANARY_SIZE: " + std::to_string(s.gc_canary_size) +
        " is larger than AWC_GC_BATCH_SIZE (" +
        std::to_string(s.gc_batch_size) + ")");
  }
  RegisterSecret(ConnInfoPassword(s.database_url));
  RegisterSecret(s.s3_secret_access_key);
  return cfg;
}

std::vector<std::string> Config::Describe() const {
  std::vector<std::string> lines;
  for (size_t n = 0; n < Specs().size(); ++n) {
    std::string line =
        std::string(Specs()[n].env) + " = " + Show(Specs()[n], settings_);
    if (line.size() < 48) line.resize(48, ' ');
    lines.push_back(line + "  # " + sources_[n]);
  }
  return lines;
}

Status RequireDaemon(const Settings& settings) {
  if (settings.database_url.empty()) {
    return Status::InvalidArgument("DATABASE_URL is not set");
  }
  if (settings.cas_url.empty()) {
    return Status::InvalidArgument("AWC_CAS_URL is not set");
  }
  return Status::OK();
}

Result<ListenAddress> ParseListenAddress(const std::string& text) {
  ListenAddress out;
  std::string port;
  if (!text.empty() && text[0] == '[') {
    size_t close = text.find(']');
    if (close == std::string::npos || close == 1 || close + 1 >= text.size() ||
        text[close + 1] != ':') {
      return Status::InvalidArgument("\"" + text +
                                     "\" is not host:port or [v6]:port");
    }
    out.host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else {
    size_t colon = text.rfind(':');
    if (colon == std::string::npos) {
      return Status::InvalidArgument("\"" + text + "\" is not host:port");
    }
    out.host = text.substr(0, colon);
    port = text.substr(colon + 1);
    // "::1:80" would be ambiguous and "::1" would read as port 1.
    if (out.host.find_first_of(":[]") != std::string::npos) {
      return Status::InvalidArgument(
          "\"" + text + "\" is not host:port (write IPv6 as [v6]:port)");
    }
  }
  if (out.host.find_first_of(" \t\r\n/") != std::string::npos) {
    return Status::InvalidArgument("\"" + text + "\" has an invalid host");
  }
  bool digits = !port.empty() && port.size() <= 5;
  for (char c : port) digits = digits && c >= '0' && c <= '9';
  int p = digits ? std::stoi(port) : 0;
  if (p < 1 || p > 65535) {
    return Status::InvalidArgument("\"" + text +
                                   "\" has no valid port (1..65535)");
  }
  out.port = p;
  return out;
}

}  // namespace awc::config

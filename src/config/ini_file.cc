#include "config/ini_file.h"

#include <ini.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "common/env.h"
#include "config/setting_spec.h"

namespace awc::config {
namespace {

struct FileCloser {
  void operator()(FILE* f) const { fclose(f); }
};
using FilePtr = std::unique_ptr<FILE, FileCloser>;

// Feeds inih one physical line per call, so the handler knows the line it
// is called for; notes lines longer than inih's buffer (inih would split
// them, or truncate them silently) and read errors (a directory).
struct IniReader {
  FILE* file = nullptr;
  int line = 0;           // lines handed to inih so far
  int overlong_line = 0;  // the first line that did not fit, or 0
  int max_bytes = 0;      // what fits in inih's buffer
  bool read_error = false;
  int read_errno = 0;
  int bad_section_line = 0;  // the first unknown [section] header, or 0
  std::string bad_section;
};

bool IsKnownSection(std::string_view section) {
  for (const Spec& spec : Specs()) {
    if (section == spec.section) return true;
  }
  return false;
}

// inih calls the handler only for keys, so an unknown section without keys
// would pass unnoticed: headers are checked as they are read.
void CheckIniSectionHeader(IniReader* r, std::string_view line) {
  if (r->bad_section_line != 0) return;
  if (r->line == 1 && line.starts_with("\xEF\xBB\xBF")) line.remove_prefix(3);
  if (!line.starts_with('[')) return;
  size_t close = line.find(']');
  if (close == std::string_view::npos) return;  // inih: syntax error
  std::string_view name = line.substr(1, close - 1);
  if (!IsKnownSection(name)) {
    r->bad_section_line = r->line;
    r->bad_section = name;
  }
}

char* ReadIniLine(char* str, int num, void* stream) {
  auto* r = static_cast<IniReader*>(stream);
  size_t cap = num > 0 ? static_cast<size_t>(num) - 1 : 0;
  r->max_bytes = static_cast<int>(cap);
  size_t n = 0;
  bool any = false;
  bool overlong = false;
  int c;
  while ((c = getc(r->file)) != EOF) {
    any = true;
    if (n < cap) {
      str[n++] = static_cast<char>(c);
    } else if (c != '\n' && c != '\r') {
      overlong = true;
    }
    if (c == '\n') break;
  }
  if (ferror(r->file)) {
    r->read_error = true;
    r->read_errno = errno;
    return nullptr;
  }
  if (!any) return nullptr;
  str[n] = '\0';
  ++r->line;
  if (overlong && r->overlong_line == 0) r->overlong_line = r->line;
  CheckIniSectionHeader(r, std::string_view(str, n));
  return str;
}

struct IniState {
  Settings* settings;
  std::vector<std::string>* sources;
  const IniReader* reader;
  std::string path;
  std::string first_error;  // the first error the handler found ...
  int error_line = 0;       // ... and its line
  std::vector<char> form;   // per spec: 0, 'v' (key) or 'f' (key_file)
};

// Records the handler's first error; returns 0 (inih's "error").
int IniError(IniState* st, std::string message) {
  if (st->error_line == 0) {
    st->error_line = st->reader->line;
    st->first_error = std::move(message);
  }
  return 0;
}

int OnIniValue(void* user, const char* section, const char* name,
               const char* value) {
  auto* st = static_cast<IniState*>(user);
  std::string sec(section), key(name);
  if (sec.empty()) {
    return IniError(st, "key \"" + key + "\" is outside a [section]");
  }
  for (size_t n = 0; n < Specs().size(); ++n) {
    const Spec& spec = Specs()[n];
    if (sec != spec.section) continue;
    std::string text = value;
    char form = 'v';
    if (spec.file_variant && key == std::string(spec.key) + "_file") {
      form = 'f';
    } else if (key != spec.key) {
      continue;
    }
    if (st->form[n] != 0 && st->form[n] != form) {
      return IniError(st, "[" + sec + "] " + key + ": set " + spec.key +
                              " or " + spec.key + "_file, not both");
    }
    st->form[n] = form;
    if (form == 'f') {
      Result<std::string> r = ReadSecretFile(text);
      if (!r.ok()) {
        return IniError(st,
                        "[" + sec + "] " + key + ": " + r.status().message());
      }
      text = *r;
    }
    Status s = Apply(spec, text, st->settings);
    if (!s.ok()) {
      return IniError(
          st, "[" + sec + "] " + key + " (" + spec.env + "): " + s.message());
    }
    (*st->sources)[n] = "file " + st->path;
    return 1;
  }
  return IniError(st, IsKnownSection(sec) ? "unknown key \"" + key +
                                                "\" in section [" + sec + "]"
                                          : "unknown section [" + sec + "]");
}

}  // namespace

Result<std::string> ReadSecretFile(const std::string& path) {
  Env* env = Env::Default();
  Result<FileInfo> info = env->Stat(path);
  if (!info.ok()) return Status::InvalidArgument(info.status().message());
  if (info->type != FileInfo::Type::kRegular) {
    return Status::InvalidArgument("\"" + path + "\" is not a regular file");
  }
  std::string too_large = "\"" + path + "\" is larger than " +
                          std::to_string(kSecretFileMaxBytes) + " bytes";
  if (info->size > kSecretFileMaxBytes) {
    return Status::InvalidArgument(too_large);
  }
  // Read at most one byte more than allowed, whatever the file became
  // since the stat.
  Result<std::unique_ptr<SequentialFile>> file = env->NewSequentialFile(path);
  if (!file.ok()) return Status::InvalidArgument(file.status().message());
  std::string v(kSecretFileMaxBytes + 1, '\0');
  size_t got = 0;
  while (got < v.size()) {
    Result<size_t> n = (*file)->Read(v.data() + got, v.size() - got);
    if (!n.ok()) return Status::InvalidArgument(n.status().message());
    if (*n == 0) break;
    got += *n;
  }
  if (got > kSecretFileMaxBytes) return Status::InvalidArgument(too_large);
  v.resize(got);
  while (!v.empty() && (v.back() == '\n' || v.back() == '\r')) v.pop_back();
  return v;
}

Status LoadIni(const std::string& path, Settings* s,
               std::vector<std::string>* sources) {
  FilePtr f(fopen(path.c_str(), "r"));
  if (f == nullptr) {
    int err = errno;
    return Status::InvalidArgument("cannot open configuration file \"" + path +
                                   "\": " + strerror(err));
  }
  IniReader reader;
  reader.file = f.get();
  IniState st{
      s, sources, &reader, path, {}, 0, std::vector<char>(Specs().size(), 0)};
  int rc = ini_parse_stream(ReadIniLine, &reader, OnIniValue, &st);
  if (reader.read_error) {
    return Status::InvalidArgument("cannot read configuration file \"" + path +
                                   "\": " + strerror(reader.read_errno));
  }
  if (rc == -2) return Status::Internal("out of memory reading " + path);
  if (rc < 0) {
    return Status::InvalidArgument("cannot read configuration file \"" + path +
                                   "\"");
  }
  // inih reports the first line with any error, ours or a syntax error; the
  // message must be the one of that line.
  int first = 0;
  for (int line :
       {rc, st.error_line, reader.overlong_line, reader.bad_section_line}) {
    if (line > 0 && (first == 0 || line < first)) first = line;
  }
  if (first == 0) return Status::OK();
  std::string what = "syntax error";
  if (first == reader.overlong_line) {
    what = "line too long (more than " + std::to_string(reader.max_bytes) +
           " bytes)";
  } else if (first == reader.bad_section_line) {
    what = "unknown section [" + reader.bad_section + "]";
  } else if (first == st.error_line) {
    what = st.first_error;
  }
  return Status::InvalidArgument(path + ":" + std::to_string(first) + ": " +
                                 what);
}

}  // namespace awc::config

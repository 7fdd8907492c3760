#include "cas/manifest.h"

#include <jansson.h>

#include <cstdio>
#include <initializer_list>
#include <memory>
#include <string>

#include "common/json.h"
#include "digest/ids.h"
#include "digest/sha256.h"

namespace awc::cas {
namespace {

Status Malformed(const std::string& what) {
  return Status::Corruption("malformed manifest: " + what);
}

Status EntryMalformed(size_t index, const std::string& what) {
  return Malformed("entry " + std::to_string(index) + ": " + what);
}

// Sets `out` to the string value of `v`, with its length (it may hold
// NUL); false when `v` is not a string.
bool StringOf(const json_t* v, std::string_view* out) {
  if (!json_is_string(v)) return false;
  *out = std::string_view(json_string_value(v), json_string_length(v));
  return true;
}

// True when `obj` has exactly `keys` (duplicates are rejected at parse).
bool HasExactlyKeys(const json_t* obj,
                    std::initializer_list<const char*> keys) {
  if (json_object_size(obj) != keys.size()) return false;
  for (const char* k : keys) {
    if (json_object_get(obj, k) == nullptr) return false;
  }
  return true;
}

Result<ManifestEntry> ParseEntry(const json_t* e, size_t index) {
  if (!json_is_object(e)) return EntryMalformed(index, "not a JSON object");
  if (!HasExactlyKeys(e, {"name", "kind", "digest", "size"})) {
    return EntryMalformed(
        index, "keys are not exactly \"name\", \"kind\", \"digest\", \"size\"");
  }
  ManifestEntry entry;

  std::string_view name;
  if (!StringOf(json_object_get(e, "name"), &name)) {
    return EntryMalformed(index, "name is not a string");
  }
  if (name.empty()) return EntryMalformed(index, "name is empty");
  if (name == "." || name == "..") {
    return EntryMalformed(index, "name is \".\" or \"..\"");
  }
  if (name.find('/') != std::string_view::npos) {
    return EntryMalformed(index, "name contains '/'");
  }
  if (name.find('\0') != std::string_view::npos) {
    return EntryMalformed(index, "name contains NUL");
  }
  entry.name = std::string(name);

  std::string_view kind;
  if (!StringOf(json_object_get(e, "kind"), &kind)) {
    return EntryMalformed(index, "kind is not a string");
  }
  if (kind == "blob") {
    entry.kind = ManifestEntry::Kind::kBlob;
  } else if (kind == "manifest") {
    entry.kind = ManifestEntry::Kind::kManifest;
  } else {
    return EntryMalformed(index, "kind is not \"blob\" or \"manifest\"");
  }

  std::string_view digest;
  if (!StringOf(json_object_get(e, "digest"), &digest) ||
      !digest::IsValidDigest(digest)) {
    return EntryMalformed(index, "digest is malformed");
  }
  entry.digest = std::string(digest);

  const json_t* size = json_object_get(e, "size");
  if (!json_is_integer(size)) {
    return EntryMalformed(index, "size is not an integer");
  }
  json_int_t n = json_integer_value(size);
  if (n < 0) return EntryMalformed(index, "size is negative");
  entry.size = static_cast<uint64_t>(n);
  return entry;
}

void AppendJsonString(std::string& out, std::string_view s) {
  out += '"';
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x",
                        static_cast<unsigned>(static_cast<unsigned char>(c)));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

}  // namespace

Result<Manifest> ParseManifest(std::string_view bytes) {
  // NUL is let through the parser so the name rule can say so itself.
  Result<JsonPtr> parsed = ParseJson(bytes, /*allow_nul=*/true);
  if (!parsed.ok()) return Malformed(parsed.status().message());
  JsonPtr root = std::move(*parsed);
  if (!json_is_object(root.get())) return Malformed("not a JSON object");
  if (!HasExactlyKeys(root.get(), {"format", "entries"})) {
    return Malformed("keys are not exactly \"format\" and \"entries\"");
  }
  std::string_view format;
  if (!StringOf(json_object_get(root.get(), "format"), &format) ||
      format != kManifestFormat) {
    return Malformed("unknown format");
  }
  const json_t* entries = json_object_get(root.get(), "entries");
  if (!json_is_array(entries)) return Malformed("entries is not an array");

  Manifest manifest;
  manifest.entries.reserve(json_array_size(entries));
  for (size_t i = 0; i < json_array_size(entries); ++i) {
    AWC_ASSIGN_OR_RETURN(ManifestEntry entry,
                         ParseEntry(json_array_get(entries, i), i));
    if (i > 0) {
      // std::string compares bytes as unsigned char.
      int c = manifest.entries.back().name.compare(entry.name);
      if (c == 0) return EntryMalformed(i, "duplicate entry name");
      if (c > 0) return EntryMalformed(i, "entries are not sorted by name");
    }
    manifest.entries.push_back(std::move(entry));
  }
  return manifest;
}

std::string SerializeManifest(const Manifest& manifest) {
  std::string out = "{\"format\":";
  AppendJsonString(out, kManifestFormat);
  out += ",\"entries\":[";
  bool first = true;
  for (const ManifestEntry& e : manifest.entries) {
    if (!first) out += ',';
    first = false;
    out += "{\"name\":";
    AppendJsonString(out, e.name);
    out += ",\"kind\":";
    out +=
        e.kind == ManifestEntry::Kind::kManifest ? "\"manifest\"" : "\"blob\"";
    out += ",\"digest\":";
    AppendJsonString(out, e.digest);
    out += ",\"size\":";
    out += std::to_string(e.size);
    out += '}';
  }
  out += "]}";
  return out;
}

std::string DigestOf(std::string_view bytes) {
  return "sha256:" + digest::Sha256::HexOf(bytes);
}

}  // namespace awc::cas

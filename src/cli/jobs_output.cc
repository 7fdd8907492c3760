#include "cli/jobs_output.h"

namespace awc::cli {

Table JobRowsTable(const std::vector<queue::JobRow>& rows, bool whole_errors) {
  Table t({{"ID", "id"},
           {"KIND", "kind"},
           {"STATE", "state"},
           {"TRIES", "attempts"},
           {"MAX", "max_attempts"},
           {"RUN_AT", "run_at"},
           {"UPDATED_AT", "updated_at"},
           {"REASON", "dead_reason"},
           {"LAST_ERROR", "last_error"}});
  for (const queue::JobRow& r : rows) {
    std::string error = r.last_error;
    if (!whole_errors && error.size() > 60) error = error.substr(0, 57) + "...";
    t.Add({Cell::Int(r.id), Cell::Text(r.kind), Cell::Text(r.state),
           Cell::Int(r.attempts), Cell::Int(r.max_attempts),
           Cell::Text(r.run_at), Cell::Text(r.updated_at),
           r.dead_reason.empty() ? Cell::None() : Cell::Text(r.dead_reason),
           r.last_error.empty() ? Cell::None() : Cell::Text(error)});
  }
  return t;
}

void PrintJobRows(Invocation& inv, std::string_view key,
                  const std::vector<queue::JobRow>& rows) {
  if (inv.json()) {
    JsonPtr doc(json_object());
    json_object_set_new(doc.get(), std::string(key).c_str(),
                        JobRowsTable(rows, true).Json().release());
    inv.Print(doc);
    return;
  }
  inv.Print(JobRowsTable(rows, false).Text());
}

int PrintIdOutcomes(Invocation& inv, std::string_view verb,
                    std::string_view from,
                    const std::vector<queue::IdOutcome>& outcomes) {
  int64_t changed = 0;
  for (const queue::IdOutcome& o : outcomes) changed += o.changed ? 1 : 0;
  bool all = changed == static_cast<int64_t>(outcomes.size());
  if (inv.json()) {
    JsonPtr doc(json_object());
    json_object_set_new(doc.get(), std::string(verb).c_str(),
                        json_integer(changed));
    json_t* arr = json_array();
    for (const queue::IdOutcome& o : outcomes) {
      json_t* obj = json_object();
      json_object_set_new(obj, "id", json_integer(o.id));
      json_object_set_new(obj, "changed", json_boolean(o.changed));
      json_object_set_new(
          obj, "was",
          o.state.empty() ? json_null() : JsonText(o.state).release());
      json_array_append_new(arr, obj);
    }
    json_object_set_new(doc.get(), "jobs", arr);
    inv.Print(doc);
    return all ? kExitOk : kExitError;
  }
  std::string text;
  for (const queue::IdOutcome& o : outcomes) {
    std::string id = std::to_string(o.id);
    if (o.changed) {
      text += std::string(verb) + " " + id + "\n";
    } else if (o.state.empty()) {
      text += id + ": no such job\n";
    } else {
      text += id + ": not " + std::string(verb) + ", it is " +
              OneLine(o.state) + " (only " + std::string(from) + " jobs are)\n";
    }
  }
  text += std::string(verb) + " " + std::to_string(changed) + " of " +
          std::to_string(outcomes.size()) + " job" +
          (outcomes.size() == 1 ? "" : "s") + "\n";
  inv.Print(text);
  return all ? kExitOk : kExitError;
}

}  // namespace awc::cli

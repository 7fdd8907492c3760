# Writes OUT, a C++ source defining awc::migrate::EmbeddedMigrations(), from
# the files DIR/NNNN_name.sql in version order. Run with cmake -P.
#
# Each migration says whether builds that do not know it keep running on a
# schema that has it (docs/operations.md, "Rolling upgrades"): its first
# line is "-- compatibility: older builds run on it" or "-- compatibility:
# breaking". Migrations released before that line existed cannot change
# (their checksums are recorded); theirs are listed here.
set(BREAKING_BEFORE_THE_LINE 1 10 13 14 15)
set(LAST_WITHOUT_THE_LINE 20)
file(GLOB FILES ${DIR}/*.sql)
list(SORT FILES)
set(body "")
foreach(path ${FILES})
  get_filename_component(name ${path} NAME_WE)
  if(NOT name MATCHES "^([0-9]+)_([a-z0-9_]+)$")
    message(FATAL_ERROR "migration file name must be NNNN_name.sql: ${path}")
  endif()
  math(EXPR version "${CMAKE_MATCH_1}")
  file(READ ${path} sql)
  string(FIND "${sql}" ")awcsql\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${path} contains the raw-string delimiter")
  endif()
  if(sql MATCHES "^-- compatibility: older builds run on it\n")
    set(compat "Compatibility::kOlderBuildsRun")
  elseif(sql MATCHES "^-- compatibility: breaking\n")
    set(compat "Compatibility::kBreaking")
  elseif(version GREATER LAST_WITHOUT_THE_LINE)
    message(FATAL_ERROR "${path} must start with \"-- compatibility: older "
            "builds run on it\" or \"-- compatibility: breaking\"")
  else()
    list(FIND BREAKING_BEFORE_THE_LINE ${version} listed)
    if(listed EQUAL -1)
      set(compat "Compatibility::kOlderBuildsRun")
    else()
      set(compat "Compatibility::kBreaking")
    endif()
  endif()
  string(APPEND body "    {${version}, \"${name}\", R\"awcsql(${sql})awcsql\", ${compat}},\n")
endforeach()
file(WRITE ${OUT}.tmp
"// Generated from migrations/*.sql by src/migrate/embed_migrations.cmake.\n"
"#include \"migrate/embedded_migrations.h\"\n"
"#include \"migrate/embedded_migrations_testing.h\"\n\n"
"namespace awc::migrate {\n\n"
"std::vector<Migration>& MutableEmbeddedMigrations() {\n"
"  static std::vector<Migration> migrations = {\n"
"${body}"
"  };\n"
"  return migrations;\n"
"}\n\n"
"const std::vector<Migration>& EmbeddedMigrations() {\n"
"  return MutableEmbeddedMigrations();\n"
"}\n\n"
"}  // namespace awc::migrate\n")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)

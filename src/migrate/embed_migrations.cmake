# Writes OUT, a C++ source defining awc::migrate::EmbeddedMigrations(), from
# the files DIR/NNNN_name.sql in version order. Run with cmake -P.
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
  string(APPEND body "    {${version}, \"${name}\", R\"awcsql(${sql})awcsql\"},\n")
endforeach()
file(WRITE ${OUT}.tmp
"// Generated from migrations/*.sql by src/migrate/embed_migrations.cmake.\n"
"#include \"migrate/embedded_migrations.h\"\n\n"
"namespace awc::migrate {\n\n"
"const std::vector<Migration>& EmbeddedMigrations() {\n"
"  static const std::vector<Migration> kMigrations = {\n"
"${body}"
"  };\n"
"  return kMigrations;\n"
"}\n\n"
"}  // namespace awc::migrate\n")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)

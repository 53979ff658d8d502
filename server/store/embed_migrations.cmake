# Writes OUT: a .cc defining sluice::store::embeddedMigrations() from DIR/NNNN_name.sql, so the
# binaries carry their schema and need no migrations directory at run time.
include(${CMAKE_CURRENT_LIST_DIR}/../../cmake/embed_files.cmake)

# "<version>, \"<name>\"" for NNNN_name.sql; other files are left out.
function(migration_fields out path)
  get_filename_component(file "${path}" NAME)
  string(REGEX MATCH "^([0-9]+)_(.*)\\.sql$" matched "${file}")
  if(NOT matched)
    set(${out} "" PARENT_SCOPE)
    return()
  endif()
  math(EXPR version "${CMAKE_MATCH_1}")
  set(${out} "${version}, \"${CMAKE_MATCH_2}\"" PARENT_SCOPE)
endfunction()

file(GLOB sql_files "${DIR}/[0-9]*_*.sql")
list(SORT sql_files)
embed_files(OUT "${OUT}" FILES ${sql_files} ENTRY migration_fields DELIMITER sluice_sql
            INCLUDE server/store/migrations.h NAMESPACE sluice::store
            TYPE Migration FUNCTION embeddedMigrations VARIABLE migrations
            COMMENT "server/store/embed_migrations.cmake from migrations/*.sql")

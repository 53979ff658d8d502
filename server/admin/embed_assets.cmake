# Writes OUT: a .cc defining sluice::admin::embeddedAssets() from the files of DIR (admin-ui/), so
# the gateway serves the console without any file at run time. The version is a hash of every
# asset: pages reference assets as NAME?v=VERSION, so they can be cached for a year.
include(${CMAKE_CURRENT_LIST_DIR}/../../cmake/embed_files.cmake)

# "\"<name>\", \"<content type>\"" for the file types the console serves; other files are left out.
function(asset_fields out path)
  get_filename_component(name "${path}" NAME)
  if(name MATCHES "\\.html$")
    set(type "text/html; charset=utf-8")
  elseif(name MATCHES "\\.css$")
    set(type "text/css; charset=utf-8")
  elseif(name MATCHES "\\.js$")
    set(type "text/javascript; charset=utf-8")
  elseif(name MATCHES "\\.svg$")
    set(type "image/svg+xml")
  else()
    set(${out} "" PARENT_SCOPE)
    return()
  endif()
  set(${out} "\"${name}\", \"${type}\"" PARENT_SCOPE)
endfunction()

file(GLOB paths "${DIR}/*")
list(SORT paths)
embed_files(OUT "${OUT}" FILES ${paths} ENTRY asset_fields DELIMITER sluice_asset
            INCLUDE server/admin/assets.h NAMESPACE sluice::admin
            TYPE Asset FUNCTION embeddedAssets VARIABLE assets VERSION_FUNCTION assetsVersion
            COMMENT "server/admin/embed_assets.cmake from admin-ui/*")

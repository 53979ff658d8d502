#pragma once
// The console's static files (admin-ui/* at the top of the tree), compiled in by embed_assets.cmake.

#include <string>
#include <string_view>
#include <vector>

namespace sluice::admin {

struct Asset {
  std::string name;          // file name, e.g. "console.js"
  std::string content_type;  // "text/javascript; charset=utf-8", ...
  std::string body;
};

const std::vector<Asset>& embeddedAssets();

// A hash of every asset: pages load assets as `name?v=<version>` and those are cached for a year.
std::string_view assetsVersion();

// The asset named `name`, or nullptr.
inline const Asset* findAsset(std::string_view name) {
  for (const auto& asset : embeddedAssets()) {
    if (asset.name == name) return &asset;
  }
  return nullptr;
}

}  // namespace sluice::admin

#include "server/dispatch/chain.h"

#include <algorithm>

namespace sluice::dispatch {

namespace {

bool namesSomething(const catalog::Catalog& catalog, std::string_view id) {
  if (catalog.resolveExact(id).kind != catalog::Resolution::Kind::Unknown) return true;
  if (const catalog::Route* route = catalog.route(id); route != nullptr) return true;
  const size_t slash = id.find('/');
  if (slash == std::string_view::npos || slash == 0) return false;
  const std::string_view provider = id.substr(0, slash);
  const std::string_view rest = id.substr(slash + 1);
  if (rest == "*") return catalog.provider(provider) != nullptr;
  return catalog.endpoint(id) != nullptr;
}

}  // namespace

std::expected<std::vector<std::string>, std::string> splitChain(std::string_view text) {
  if (text.size() > kMaxChainText) {
    return std::unexpected("the chain is " + std::to_string(text.size()) + " bytes long; at most " +
                           std::to_string(kMaxChainText) + " are accepted");
  }
  std::vector<std::string> pieces;
  size_t start = 0;
  while (true) {
    const size_t bar = text.find('|', start);
    std::string_view piece = text.substr(start, bar == std::string_view::npos ? std::string_view::npos : bar - start);
    while (!piece.empty() && piece.front() == ' ') piece.remove_prefix(1);
    while (!piece.empty() && piece.back() == ' ') piece.remove_suffix(1);
    if (piece.empty()) {
      return std::unexpected("piece " + std::to_string(pieces.size() + 1) + " of the chain is empty");
    }
    // A piece is written into route_match (chain:, piece:, skip:), whose segments ';' separates.
    const bool forged = std::ranges::any_of(piece, [](char c) {
      const auto byte = static_cast<unsigned char>(c);
      return c == ';' || byte < 0x20 || byte == 0x7f;
    });
    if (forged) {
      return std::unexpected("piece " + std::to_string(pieces.size() + 1) +
                             " of the chain holds ';' or a control character");
    }
    pieces.emplace_back(piece);
    if (pieces.size() > kMaxChainTargets) {
      return std::unexpected("the chain has more than " + std::to_string(kMaxChainTargets) + " pieces");
    }
    if (bar == std::string_view::npos) break;
    start = bar + 1;
  }
  return pieces;
}

std::string_view pieceName(const catalog::Catalog& catalog, std::string_view piece) {
  const std::string_view id = catalog::stripContextMarker(piece);
  if (namesSomething(catalog, id) || !id.starts_with(catalog::kSluicePrefix)) return id;
  return id.substr(catalog::kSluicePrefix.size());
}

bool isAdHocName(const catalog::Catalog& catalog, std::string_view requested) {
  if (requested.find('|') != std::string_view::npos) return true;
  if (catalog.resolve(requested).kind != catalog::Resolution::Kind::Unknown) return false;
  return namesSomething(catalog, pieceName(catalog, requested));
}

}  // namespace sluice::dispatch

#pragma once
// Ad-hoc chains: a requested model such as "claude-sonnet-5-5|gpt-5-5|gemini-3-flash" tries each
// piece in order with the usual failover rules (CATALOG.md "Dispatch rules"). A piece is
//   - a declared model or an alias (as when asked for alone: its route, scope, context window,
//     governance and strategy),
//   - the id of an explicit route (each model it serves, in its order, under that route; a
//     scoped route only for its own project),
//   - `provider/endpoint`: every model deployed on that endpoint, in catalog order, pinned to it,
//   - `provider/*`: every model the provider's endpoints serve, in catalog order, each through the
//     provider's deployments of it in failover order.
// A "sluice/" prefix is accepted on the whole name and on each piece.
//
// Bounds: at most kMaxChainTargets attempts once expanded (a target reached twice counts once)
// and kMaxChainDepth levels of expansion (the chain, a route piece, the route's models, their
// deployments), and kMaxChainText bytes of text. Pure; no I/O.

#include <cstddef>
#include <expected>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.h"

namespace sluice::dispatch {

inline constexpr size_t kMaxChainTargets = 40;
inline constexpr int kMaxChainDepth = 4;
inline constexpr size_t kMaxChainText = 4096;

// Splits "a|b|c" (a leading "sluice/" on the whole text is kept on the first piece: each piece
// strips its own). The reason, for a 400 invalid_chain, when a piece is empty or holds ';' or a
// control character (pieces are written into route_match, whose segments ';' separates), the
// text is longer than kMaxChainText, or there are more pieces than kMaxChainTargets.
std::expected<std::vector<std::string>, std::string> splitChain(std::string_view text);

// Whether `requested` is planned as an ad-hoc chain: it holds '|', or it names no model, alias or
// retired id but does name an explicit route, an endpoint "provider/endpoint" or "provider/*".
bool isAdHocName(const catalog::Catalog& catalog, std::string_view requested);

// `piece` without its "[1m]" marker and, when that alone names nothing, without "sluice/".
std::string_view pieceName(const catalog::Catalog& catalog, std::string_view piece);

}  // namespace sluice::dispatch

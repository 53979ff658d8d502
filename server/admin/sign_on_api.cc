// The console's single sign-on pages (oidc_sign_in.h does the protocol): the sign-in page with its
// "Sign in with <provider>" button, /admin/oidc/start, /admin/oidc/callback, and the member a
// verified sign-in stands for (found, made on a first sign-in, groups and role settled).
#include <algorithm>
#include <cctype>
#include <chrono>

#include <Poco/Net/NameValueCollection.h>
#include <openssl/rand.h>

#include "server/admin/api.h"
#include "server/admin/assets.h"
#include "server/admin/console_http.h"
#include "server/admin/session_store.h"
#include "server/identity/group_roles.h"
#include "server/identity/member_store.h"
#include "server/identity/oidc.h"
#include "server/log/json_log.h"

namespace sluice::admin {

namespace {

using Clock = std::chrono::system_clock;

constexpr const char* kSsoCookie = "sluice_oidc";

// A random RFC 4122 version 4 UUID (a SCIM id for a member a first sign-in made).
std::string randomUuid() {
  unsigned char bytes[16];
  if (RAND_bytes(bytes, sizeof bytes) != 1) throw std::runtime_error("RAND_bytes failed");
  bytes[6] = static_cast<unsigned char>((bytes[6] & 0x0f) | 0x40);
  bytes[8] = static_cast<unsigned char>((bytes[8] & 0x3f) | 0x80);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += kHex[bytes[i] >> 4];
    out += kHex[bytes[i] & 15];
  }
  return out;
}

// A sign-in that did not succeed, said on a page (never with a token, code or secret in it).
Reply refusedSignIn(int status, const std::string& why) {
  return htmlReply(status, "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Sign-in refused · Sluice"
                           "</title><link rel=\"stylesheet\" href=\"/admin/assets/console.css?v=" +
                               std::string(assetsVersion()) +
                               "\"></head><body class=\"login\"><main id=\"main\" class=\"narrow\"><h1>Sign-in refused"
                               "</h1><p id=\"sign-in-refused\" class=\"error\" role=\"alert\">" +
                               htmlEscape(why) + "</p><p><a href=\"/admin/login\">Back to sign-in</a></p></main></body></html>");
}

std::string ssoCookie(const Poco::Net::HTTPServerRequest& request, const std::string& value, long max_age) {
  // Lax, not Strict: the provider's redirect back is a cross-site navigation, on which a Strict
  // cookie is not sent. The cookie is only read by the callback, and only once.
  std::string text = std::string(kSsoCookie) + "=" + value + "; Path=/admin/oidc; HttpOnly; SameSite=Lax; Max-Age=" +
                     std::to_string(max_age);
  if (isHttps(request)) text += "; Secure";
  return text;
}

// The member a verified sign-in stands for: the member named by the claim, or the one an
// "email:" subject of theirs names; made on a first sign-in when `provision` is on. Their groups
// follow the token's (when groups_claim is set); admin_groups make an admin, and leaving them
// demotes a member single sign-on or SCIM made (a member made at the CLI keeps their role: the
// break-glass admin stays one).
std::expected<identity::Member, std::string> signedInMember(ConsoleContext& context, const catalog::OidcSettings& settings,
                                                            const identity::oidc::SignedIn& who) {
  if (!context.members) return std::unexpected("This gateway has no database to find members in.");
  auto member = identity::findMember(*context.members, who.member);
  if (!member && who.email) {
    const auto rows = context.keys->findMembersBySubjects({"email:" + *who.email});
    if (!rows.empty()) member = identity::findMember(*context.members, rows.front().member.name);
  }
  if (!member) {
    if (!settings.provision) {
      return std::unexpected("No member is named " + who.member + " on this gateway; ask an admin to add you.");
    }
    store::MemberRow row;
    row.name = who.member;
    row.groups = who.groups.value_or(std::vector<std::string>{});
    row.role = std::string(identity::toString(
        identity::roleFromGroups(row.groups, settings.admin_groups).value_or(identity::Role::Member)));
    row.created_at = Clock::now();
    row.source = "sso";
    row.scim_id = randomUuid();
    row.email = who.email;
    row.display_name = who.display_name;
    auto inserted = context.members->insertMember(row);
    if (!inserted) {
      // Another replica made them at the same moment.
      member = identity::findMember(*context.members, who.member);
      if (!member) return std::unexpected("The member could not be made: " + identity::memberErrorOf(inserted.error(), who.member).message);
    } else {
      member = identity::memberOf(*inserted);
      if (context.admin_events) {
        context.admin_events->append(store::AdminEventRow{0, Clock::now(), "sso:" + who.member, "member.add", who.member,
                                                           "first sign-in; role " + row.role});
      }
      log::info("member made by a first sign-in", {{"user", who.member}, {"role", row.role}});
    }
  }
  if (member->disabled()) return std::unexpected("Member " + member->name + " is disabled; ask an admin.");
  if (who.groups && *who.groups != member->groups) {
    if (auto row = context.members->findMember(member->name)) {
      row->groups = *who.groups;
      if (auto updated = context.members->updateMember(*row)) {
        if (context.admin_events) {
          context.admin_events->append(store::AdminEventRow{0, Clock::now(), "sso:" + member->name, "member.update",
                                                             member->name, "groups from the sign-in"});
        }
        member = identity::memberOf(*updated);
      }
    }
  }
  // The one rule SCIM follows too (group_roles.h): for members single sign-on or SCIM made,
  // admin exactly while in an admin group, never demoting the last enabled admin.
  if (identity::groupsDecideRole(member->source) && !settings.admin_groups.empty()) {
    const auto settled = identity::settleRoleFromGroups(*context.members, member->name, settings.admin_groups);
    using Outcome = identity::RoleSettlement::Outcome;
    if (settled.outcome == Outcome::Promoted || settled.outcome == Outcome::Demoted) {
      if (context.admin_events) {
        context.admin_events->append(store::AdminEventRow{0, Clock::now(), "sso:" + member->name, "member.update",
                                                           member->name, std::string("role ") + std::string(identity::toString(settled.role)) +
                                                                             " from the sign-in's groups"});
      }
      member->role = settled.role;
    } else if (settled.outcome == Outcome::KeptLastAdmin) {
      log::warn("last enabled admin kept although no longer in an admin group", {{"user", member->name}});
    }
  }
  return *member;
}

}  // namespace

// The sign-in page: the key form (unless key_sign_in is off) and "Sign in with <provider>" when
// single sign-on is configured.
Reply signInPage(ConsoleContext& context) {
  const auto catalog = context.gateway.catalog();
  const Asset* page = findAsset("login.html");
  std::string html = page ? page->body : "";
  std::string sso;
  if (catalog->console.oidc) {
    sso = "<p class=\"sso\"><a class=\"button\" id=\"sso-sign-in\" href=\"/admin/oidc/start\">Sign in with " +
          htmlEscape(catalog->console.oidc->display_name) + "</a></p>";
  }
  const auto replace = [&html](const std::string& from, const std::string& to) {
    for (size_t at = html.find(from); at != std::string::npos; at = html.find(from, at + to.size())) html.replace(at, from.size(), to);
  };
  replace("%SSO%", sso);
  replace("%KEYS%", catalog->console.key_sign_in ? "" : " hidden");
  replace("%V%", std::string(assetsVersion()));
  return htmlReply(200, html);
}

// GET /admin/oidc/start[?next=/admin/...]: to the provider, with this browser's flow in its cookie.
Reply ssoStart(ConsoleContext& context, const Poco::Net::HTTPServerRequest& request, const Exchange& exchange) {
  const auto catalog = context.gateway.catalog();
  if (!catalog->console.oidc) return refusedSignIn(404, "Single sign-on is not configured on this gateway (gateway.console.oidc).");
  const auto& settings = *catalog->console.oidc;
  if (!settings.unavailable.empty()) {
    return refusedSignIn(503, "Single sign-on is unavailable on this gateway: " + settings.unavailable + ". Tell the platform team.");
  }
  const auto provider = context.sign_on.provider(settings);
  if (!provider) {
    log::warn("console sign-on unavailable", {{"issuer", settings.issuer}, {"error", provider.error()}});
    return refusedSignIn(503, "The identity provider cannot be reached: " + provider.error() + ". Try again shortly.");
  }
  const OidcFlow flow = context.sign_on.begin(exchange.param("next"), Clock::now());
  const std::string redirect_uri = baseUrl(request) + "/admin/oidc/callback";
  Reply reply = Reply::redirect(identity::oidc::authorizationUrl(*provider, settings, redirect_uri, flow.state, flow.nonce,
                                                                 identity::oidc::codeChallenge(flow.verifier)));
  reply.headers.emplace_back("Set-Cookie", ssoCookie(request, context.sign_on.seal(flow),
                                                     static_cast<long>(OidcSignIn::kFlowLifetime.count())));
  return reply;
}

// GET /admin/oidc/callback?code=&state=: the provider's answer, in the browser that started.
Reply ssoCallback(ConsoleContext& context, const Poco::Net::HTTPServerRequest& request, const Exchange& exchange) {
  const auto catalog = context.gateway.catalog();
  if (!catalog->console.oidc) return refusedSignIn(404, "Single sign-on is not configured on this gateway (gateway.console.oidc).");
  const auto& settings = *catalog->console.oidc;
  const std::string peer = request.clientAddress().host().toString();
  const auto now = Clock::now();
  if (const auto wait = context.sign_ins.retryAfter(peer, now); wait.count() > 0) {
    context.gateway.metrics().console_sign_ins_refused.inc();
    return refusedSignIn(429, "Too many failed sign-ins from this address: try again in " + std::to_string(wait.count()) + " s.");
  }
  auto refuse = [&](int status, const std::string& why) {
    context.sign_ins.recordFailure(peer, now);
    log::warn("console sign-on refused", {{"peer", peer}, {"reason", why}});
    Reply reply = refusedSignIn(status, why);
    reply.headers.emplace_back("Set-Cookie", ssoCookie(request, "", 0));
    return reply;
  };
  Poco::Net::NameValueCollection cookies;
  request.getCookies(cookies);
  const auto flow = context.sign_on.open(cookies.get(kSsoCookie, ""), now);
  if (!flow) return refuse(400, "This browser did not start this sign-in, or it took longer than 10 minutes. Start again.");
  if (!constantTimeEquals(exchange.param("state"), flow->state)) return refuse(400, "The sign-in's state does not match the one this browser started.");
  if (!context.sign_on.firstUse(flow->state, now)) return refuse(400, "This sign-in was already used. Start again.");
  if (const auto error = exchange.optionalParam("error")) {
    std::string code = error->substr(0, 64);
    for (char& c : code) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
    }
    return refuse(403, "The identity provider refused the sign-in (" + code + ").");
  }
  const std::string code = exchange.param("code");
  if (code.empty() || code.size() > 4096) return refuse(400, "The identity provider's answer holds no authorization code.");
  const auto provider = context.sign_on.provider(settings);
  if (!provider) return refuse(503, "The identity provider cannot be reached: " + provider.error() + ".");
  const auto claims = context.sign_on.finish(settings, *provider, code, baseUrl(request) + "/admin/oidc/callback", *flow, now);
  if (!claims) return refuse(403, "The sign-in could not be verified: " + claims.error() + ".");
  const auto who = identity::oidc::signedInOf(*claims, settings);
  if (!who) return refuse(403, who.error() + ".");
  auto member = signedInMember(context, settings, *who);
  if (!member) return refuse(403, member.error());
  const bool admin = member->role == identity::Role::Admin;
  const Session created = context.sessions.create(member->name, "", now, admin);
  if (context.stored_sessions) storeSession(*context.stored_sessions, created, context.sessions.policy().lifetime);
  log::info("console sign-in", {{"user", member->name}, {"method", "oidc"}, {"admin", admin}});
  // A page that moves on by itself rather than a redirect: the session cookie is SameSite=Strict,
  // and a redirect chain the provider started counts as cross-site, so the browser would not send
  // it on the next page; a navigation from this page is same-site.
  const std::string next = flow->next == "/admin/gateway" && !admin ? "/admin/account" : flow->next;
  Reply reply = htmlReply(200, "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
                               "<meta http-equiv=\"refresh\" content=\"0;url=" + htmlEscape(next) +
                               "\"><title>Signed in · Sluice</title></head><body><p>Signed in as " + htmlEscape(member->name) +
                               ". <a href=\"" + htmlEscape(next) + "\">Continue</a></p></body></html>");
  reply.headers.emplace_back("Set-Cookie", ssoCookie(request, "", 0));
  reply.headers.emplace_back(
      "Set-Cookie", sessionCookie(request, created.id, static_cast<long>(context.sessions.policy().lifetime.count())));
  return reply;
}

}  // namespace sluice::admin

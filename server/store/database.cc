#include "server/store/database.h"

#include <regex>

namespace sluice::store {

namespace {

bool isUri(const std::string& url) { return url.starts_with("postgresql://") || url.starts_with("postgres://"); }

void addOption(std::string& url, const std::string& key, const std::string& value) {
  if (url.find(key + "=") != std::string::npos) return;
  if (isUri(url)) {
    url += (url.find('?') == std::string::npos ? "?" : "&") + key + "=" + value;
  } else {
    url += (url.empty() ? "" : " ") + key + "=" + value;
  }
}

}  // namespace

std::string connectionString(const std::string& url, int connect_timeout_seconds) {
  std::string result = url;
  addOption(result, "connect_timeout", std::to_string(connect_timeout_seconds));
  addOption(result, "application_name", "sluice");
  // A peer that vanishes without closing (a partition, a dead host) is noticed within ~20 s
  // instead of the kernel's two hours.
  addOption(result, "keepalives", "1");
  addOption(result, "keepalives_idle", "10");
  addOption(result, "keepalives_interval", "5");
  addOption(result, "keepalives_count", "2");
  return result;
}

std::unique_ptr<pqxx::connection> connect(const std::string& url, int connect_timeout_seconds) {
  auto connection = std::make_unique<pqxx::connection>(connectionString(url, connect_timeout_seconds));
  pqxx::nontransaction setup(*connection);
  setup.exec("SET TimeZone = 'UTC'");
  return connection;
}

bool ping(const std::string& url, std::string* error) {
  try {
    auto connection = connect(url);
    pqxx::nontransaction query(*connection);
    query.exec1("SELECT 1");
    return true;
  } catch (const std::exception& failure) {
    if (error) *error = failure.what();
    return false;
  }
}

std::string redactUrl(const std::string& url) {
  static const std::regex uri_password(R"(^(postgres(?:ql)?://[^:/@]*:)[^@]*@)");
  static const std::regex keyword_password(R"((password\s*=\s*)('[^']*'|\S+))");
  std::string result = std::regex_replace(url, uri_password, "$1***@");
  return std::regex_replace(result, keyword_password, "$1***");
}

}  // namespace sluice::store

#pragma once
// Which of a quota window's `alerts:` a counter has reached: pure, from the counter's totals and
// the limit that applies to its subject (an override's, else the window's default). The sender
// (server/alerts/alert_sender.h) makes each one a webhook call, once per (window, subject,
// threshold, period) across the fleet.

#include <cstdint>
#include <string>
#include <vector>

#include "server/identity/quota.h"

namespace sluice::identity {

struct AlertDue {
  std::string window_id;
  std::string scope_kind;   // "project", "group", "user", "api_key", "organisation"
  std::string scope_value;
  std::string webhook;      // a gateway.webhooks id
  std::string limit_source = "default";  // AppliedLimits::source
  int percent = 0;          // the threshold reached
  QuotaMeasure measure = QuotaMeasure::Cost;
  int64_t used = 0;         // microdollars for Cost
  int64_t limit = 0;
  WindowSpan span;          // the period the alert belongs to
};

// Every alert of the counter's window whose threshold `used` has reached, for the first measure
// with a limit in the order cost, requests, input tokens, output tokens that reached it; in the
// window's (ascending) order. None when the applied limits are unlimited.
std::vector<AlertDue> alertsDue(const QuotaCounter& counter, const QuotaUsage& used);

// "window|scope_kind|scope_value|percent|webhook|period start seconds": names one alert.
std::string alertKey(const AlertDue& alert);

}  // namespace sluice::identity

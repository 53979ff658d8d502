#include "server/identity/member_store.h"

#include <algorithm>

namespace sluice::identity {

namespace {

// Normalised subjects, duplicates dropped; the first unusable one is the error.
std::expected<std::vector<std::string>, std::string> storedSubjects(const std::vector<std::string>& written) {
  std::vector<std::string> out;
  for (const std::string& text : written) {
    auto subject = parseCertSubject(text);
    if (!subject) return std::unexpected(subject.error());
    if (std::find(out.begin(), out.end(), *subject) == out.end()) out.push_back(std::move(*subject));
  }
  return out;
}

}  // namespace

MemberError memberErrorOf(const store::RosterConflict& conflict, std::string_view name) {
  switch (conflict.kind) {
    case store::RosterConflict::Kind::NameTaken:
      return MemberError{MemberErrorKind::AlreadyExists, "member '" + std::string(name) + "' already exists"};
    case store::RosterConflict::Kind::SubjectTaken:
      return MemberError{MemberErrorKind::SubjectTaken, "certificate subject '" + conflict.subject +
                                                            "' already stands for member " + conflict.holder};
    case store::RosterConflict::Kind::NoSuchMember:
      break;
  }
  return MemberError{MemberErrorKind::NoSuchMember, "no member named '" + std::string(name) + "'"};
}

std::vector<std::string> withoutDuplicates(std::vector<std::string> names) {
  std::vector<std::string> out;
  for (auto& name : names) {
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(std::move(name));
  }
  return out;
}

Member memberOf(const store::MemberRow& row) {
  Member member;
  member.name = row.name;
  member.role = parseRole(row.role).value_or(Role::Member);
  member.source = row.source;
  member.email = row.email;
  member.groups = row.groups;
  member.projects = row.projects;
  member.primary_project = row.primary_project;
  member.disabled_at = row.disabled_at;
  member.created_at = row.created_at;
  member.cert_subjects = row.cert_subjects;
  return member;
}

bool validName(std::string_view name) {
  const auto alnum = [](char c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); };
  if (name.empty() || name.size() > 128 || !alnum(name.front())) return false;
  return std::all_of(name.begin(), name.end(), [&](char c) {
    return alnum(c) || c == '.' || c == '_' || c == '@' || c == '+' || c == '-';
  });
}

std::optional<std::string> validateMember(const NewMember& member) {
  const std::string rule = ": use a letter or digit, then letters, digits and . _ @ + - (at most 128)";
  if (!validName(member.name)) return "invalid member name '" + member.name + "'" + rule;
  for (const auto& group : member.groups) {
    if (!validName(group)) return "invalid group name '" + group + "'" + rule;
  }
  for (const auto& project : member.projects) {
    if (!validName(project)) return "invalid project name '" + project + "'" + rule;
  }
  if (member.primary_project &&
      std::find(member.projects.begin(), member.projects.end(), *member.primary_project) == member.projects.end()) {
    return "primary project '" + *member.primary_project + "' is not one of the member's projects (add --project " +
           *member.primary_project + ")";
  }
  for (const auto& subject : member.cert_subjects) {
    if (auto parsed = parseCertSubject(subject); !parsed) return parsed.error();
  }
  return std::nullopt;
}

std::expected<Member, MemberError> addMember(store::MemberRoster& roster, const NewMember& input, TimePoint now) {
  NewMember member = input;
  member.groups = withoutDuplicates(std::move(member.groups));
  member.projects = withoutDuplicates(std::move(member.projects));
  if (auto problem = validateMember(member)) return std::unexpected(MemberError{MemberErrorKind::Invalid, *problem});
  auto subjects = storedSubjects(member.cert_subjects);
  if (!subjects) return std::unexpected(MemberError{MemberErrorKind::Invalid, subjects.error()});
  store::MemberRow row;
  row.name = member.name;
  row.role = std::string(toString(member.role));
  row.groups = member.groups;
  row.projects = member.projects;
  row.primary_project = member.primary_project;
  row.created_at = now;
  row.cert_subjects = std::move(*subjects);
  auto stored = roster.insertMember(row);
  if (!stored) return std::unexpected(memberErrorOf(stored.error(), member.name));
  return memberOf(*stored);
}

std::vector<Member> listMembers(store::MemberRoster& roster) {
  std::vector<Member> members;
  for (const store::MemberRow& row : roster.listMembers()) members.push_back(memberOf(row));
  return members;
}

std::optional<Member> findMember(store::MemberRoster& roster, std::string_view name) {
  auto row = roster.findMember(name);
  if (!row) return std::nullopt;
  return memberOf(*row);
}

std::expected<std::string, MemberError> addCertSubject(store::MemberRoster& roster, std::string_view name,
                                                       std::string_view text, TimePoint now) {
  auto subject = parseCertSubject(text);
  if (!subject) return std::unexpected(MemberError{MemberErrorKind::Invalid, subject.error()});
  const auto added = roster.insertSubject(name, *subject, now);
  if (!added) return std::unexpected(memberErrorOf(added.error(), name));
  return *subject;
}

bool removeCertSubject(store::MemberRoster& roster, std::string_view name, std::string_view text) {
  auto subject = parseCertSubject(text);
  if (!subject) return false;
  return roster.deleteSubject(name, *subject);
}

std::vector<SubjectMatch> subjectMatchesOf(const std::vector<store::SubjectRow>& rows) {
  std::vector<SubjectMatch> matches;
  for (const store::SubjectRow& row : rows) matches.push_back(SubjectMatch{row.subject, memberOf(row.member)});
  return matches;
}

DisableResult disableMember(store::MemberRoster& roster, std::string_view name, TimePoint now) {
  switch (roster.setDisabled(name, now)) {
    case store::DisableChange::Disabled: return DisableResult::Disabled;
    case store::DisableChange::AlreadyDisabled: return DisableResult::AlreadyDisabled;
    case store::DisableChange::NoSuchMember: break;
  }
  return DisableResult::NoSuchMember;
}

}  // namespace sluice::identity

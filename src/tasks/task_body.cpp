#include "tessera/tasks/task_body.hpp"

#include <sstream>

#include "tessera/core/error.hpp"
#include "tessera/core/hash.hpp"

namespace tessera::detail {

const char* name(Privilege p) {
  switch (p) {
    case Privilege::Read: return "read";
    case Privilege::Write: return "write";
    case Privilege::ReadWrite: return "read-write";
    default: return "reduce";
  }
}

void TaskBody::validate(const std::string& task, const std::vector<ArgView>& args, int key) const {
  if (args.size() != specs_.size())
    raise("internal: ", task, " has ", args.size(), " arguments but its body states ", specs_.size(), " constraints");
  const View& domain = args[key].view;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const ArgSpec& s = specs_[i];
    if (s.privilege != Privilege::Read && s.constraint->kind() != Constraint::Kind::Align)
      raise("internal: ", task, " writes argument ", i, " under ", s.constraint->to_string(),
            "; written arguments are aligned with the launch");
    s.constraint->validate(task, static_cast<int>(i), *args[i].store, args[i].view, domain);
  }
}

std::uint64_t TaskBody::signature() const {
  // Part of the plan cache's key: each word mixed in apart (injectively), so that no two lists
  // of constraints and privileges give the same steps.
  std::uint64_t h = mix64(0x7a5c, specs_.size());
  for (const ArgSpec& s : specs_)
    h = mix64(mix64(h, s.constraint->signature()), static_cast<std::uint64_t>(s.privilege));
  return h;
}

std::string TaskBody::describe(const std::vector<ArgView>& args) const {
  std::ostringstream out;
  for (std::size_t i = 0; i < specs_.size(); ++i) {
    out << (i ? ", " : "") << "store#" << args[i].store->id() << " " << name(specs_[i].privilege) << " "
        << specs_[i].constraint->to_string();
  }
  return out.str();
}

}  // namespace tessera::detail

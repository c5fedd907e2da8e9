#include "fuzz/minimizer.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "fuzz/reference.hpp"
#include "fuzz/runner.hpp"

namespace fuzz {
namespace {

Expr* nth_node(Expr& e, int& n) {
  if (n-- == 0) return &e;
  for (auto& k : e.kids)
    if (Expr* x = nth_node(k, n)) return x;
  return nullptr;
}
int count_nodes(const Expr& e) {
  int n = 1;
  for (const auto& k : e.kids) n += count_nodes(k);
  return n;
}

void rename_slot(Expr& e, int from, int to) {
  if (e.op == Op::Leaf && e.slot == from) e.slot = to;
  for (auto& k : e.kids) rename_slot(k, from, to);
}

// Program p without its step k, an alias `vA = vB`, reading vB wherever vA was read until vA
// is bound again; false if the step is no such alias.
bool without_alias(const Program& p, std::size_t k, Program& q) {
  const Step& a = p.steps[k];
  const Expr* src = a.kind == SK::View ? &a.target : a.kind == SK::Bind ? &a.rhs : nullptr;
  if (!src || src->op != Op::Leaf || !src->sl.empty() || src->slot == a.dst) return false;
  const int from = a.dst, to = src->slot;
  q = p;
  q.steps.erase(q.steps.begin() + static_cast<std::ptrdiff_t>(k));
  for (std::size_t i = k; i < q.steps.size(); ++i) {
    Step& s = q.steps[i];
    rename_slot(s.rhs, from, to);
    rename_slot(s.target, from, to);
    rename_slot(s.fill, from, to);
    if (s.kind == SK::Check && s.dst == from) s.dst = to;
    const bool rebinds = s.kind == SK::Create || s.kind == SK::Bind || s.kind == SK::View || s.kind == SK::Drop;
    if (s.kind == SK::Swap || s.kind == SK::Move) {
      if (s.dst == from) s.dst = to;
      if (s.src == from) s.src = to;
    } else if (rebinds && s.dst == from) {
      break;
    }
  }
  return true;
}

}  // namespace

bool Minimizer::fails(Program& q) {
  if (runs >= max_runs || q.steps.empty() || q.steps.back().kind != SK::Check) return false;
  std::vector<Snap> ref;
  std::string why;
  if (!run_reference(q, ref, &why)) {
    if (std::getenv("TESSERA_FUZZ_DEBUG"))
      std::printf("[fuzz-min] %zu steps: invalid: %s\n", q.steps.size(), why.c_str());
    return false;  // not a valid program any more
  }
  // Fused results depend on where windows are cut, which moves as steps are dropped: a
  // candidate also counts as failing with a large window (cut only at checkpoints).
  for (const int w : {q.window, 256}) {
    if (w != q.window && q.window == 256) break;
    Program c = q;
    c.window = w;
    ++runs;
    Totals a, b;
    const Outcome o = check_program(c, ref, a, b);
    if (o.bad) {
      detail = o.detail;
      q.window = w;
      return true;
    }
  }
  if (std::getenv("TESSERA_FUZZ_DEBUG")) std::printf("[fuzz-min] %zu steps: passes\n", q.steps.size());
  return false;
}

Program Minimizer::run(Program p, int first_bad_step) {
  // 1. Stop at the first failing checkpoint; drop the other checkpoints.
  if (first_bad_step >= 0 && first_bad_step + 1 < static_cast<int>(p.steps.size())) {
    Program q = p;
    q.steps.resize(static_cast<std::size_t>(first_bad_step) + 1);
    if (fails(q)) p = q;
  }
  {
    Program q = p;
    q.steps.clear();
    for (std::size_t k = 0; k < p.steps.size(); ++k)
      if (p.steps[k].kind != SK::Check || k + 1 == p.steps.size()) q.steps.push_back(p.steps[k]);
    if (q.steps.size() < p.steps.size() && fails(q)) p = q;
  }
  // 2. Drop chunks of steps, halving the chunk size, from the end backwards (uses of a name
  //    go before its definition), until nothing more can go.
  for (std::size_t chunk = std::max<std::size_t>(1, p.steps.size() / 2);; chunk = std::max<std::size_t>(1, chunk / 2)) {
    bool progress = false;
    for (std::size_t i = p.steps.size() - 1; i-- > 0;) {
      if (i >= p.steps.size() - 1) continue;
      const std::size_t from = i + 1 >= chunk ? i + 1 - chunk : 0;
      Program q = p;
      q.steps.erase(q.steps.begin() + static_cast<std::ptrdiff_t>(from),
                    q.steps.begin() + static_cast<std::ptrdiff_t>(i + 1));
      if (fails(q)) {
        p = q;
        progress = true;
        i = std::min(from + 1, p.steps.size() - 1);
      }
    }
    if (chunk == 1 && !progress) break;
  }
  // 3. Replace subexpressions by one of their operands, views by whole arrays, generated data
  //    by ones; then drop single steps again.
  for (int round = 0; round < 2; ++round) {
    for (std::size_t k = 0; k < p.steps.size();) {
      Program alias;
      if (without_alias(p, k, alias) && fails(alias)) {
        p = alias;  // step k is gone: look at the new step k
        continue;
      }
      if (p.steps[k].kind == SK::Create && p.steps[k].how != How::Ones && p.steps[k].how != How::EmptyAssign) {
        Program q = p;
        q.steps[k].how = How::Ones;
        if (fails(q)) p = q;
      }
      for (int which = 0; which < 2; ++which) {
        auto root = [&](Program& x) -> Expr& { return which == 0 ? x.steps[k].rhs : x.steps[k].target; };
        for (int n = 0; n < count_nodes(root(p)); ++n) {
          int m = n;
          const Expr* at = nth_node(root(p), m);
          if (!at || at->op != Op::Leaf || at->sl.empty()) continue;
          Program q = p;
          int m2 = n;
          nth_node(root(q), m2)->sl.clear();
          if (fails(q)) p = q;
        }
      }
      ++k;
    }
    for (std::size_t k = 0; k < p.steps.size(); ++k) {
      for (int n = 0; n < count_nodes(p.steps[k].rhs); ++n) {
        bool progress = false;
        int m = n;
        Expr* at = nth_node(p.steps[k].rhs, m);
        if (!at) break;
        for (std::size_t j = 0; j < at->kids.size() && !progress; ++j) {
          Program q = p;
          int m2 = n;
          Expr* x = nth_node(q.steps[k].rhs, m2);
          Expr kid = x->kids[j];
          *x = kid;
          if (fails(q)) {
            p = q;
            progress = true;
          }
        }
        if (progress) n = -1;  // start over on this step
      }
    }
    bool progress = true;
    while (progress) {
      progress = false;
      for (std::size_t i = p.steps.size() - 1; i-- > 0;) {
        Program q = p;
        q.steps.erase(q.steps.begin() + static_cast<std::ptrdiff_t>(i));
        if (fails(q)) {
          p = q;
          progress = true;
        }
      }
    }
  }
  return p;
}

}  // namespace fuzz

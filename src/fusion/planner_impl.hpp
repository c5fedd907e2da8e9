#pragma once
// The window planner (internal to src/fusion; make_plan, fusion/plan.hpp, is its interface): cut the window into the
// longest groups that the seven fusion rules allow, decide which stores are temporaries, and build one fused program
// per group.
//
// Rules (DESIGN.md): an op joins the current group only if
//   1. its launch domain has the same tiling as the group's;
//   2. it does not read or write a store that the group wrote through a different view;
//   3. it does not write a store that the group read through a different view, unless the write
//      covers most of the store: then the group writes a fresh buffer (buffer renaming);
//   4. it does not read a value reduced in the group;
//   5. the group's halos can be exchanged before it starts (follows from 2: a shifted read of a
//      store written in the group is a read through a different view);
//   6. the group's kernel keeps to kMaxArgs arguments (they travel in the kernel parameters);
//   7. the op does not come after the start of the loop's next iteration (an op repeating the
//      window's first op, or the op where a setup before the loop ends: find_loop_op) once the
//      group spans kLoopSpan ops.
// Scalar-only ops (0-d in, 0-d out) are not grouped: their consumers recompute them inline, and
// they run as kernels of their own only if their result is still needed after the window.
// Elementwise ops whose result is a temporary are rematerialized the same way (recomputed inside
// each consumer, never stored) when the byte model says recomputing reads less than storing and
// loading the result, and their inputs do not change before the consumers run, or change only in
// the consumer's group, into a fresh buffer that the recomputation reads the old values beside
// (recomputations_hold).
// A task with partition constraints (a product, an SpMV, a kernel of the user's own: Task::body)
// is a group of its own, whose arguments are all kernel arguments: nothing it touches lives in
// registers, nothing it reads is recomputed inside it.
//
// The planner's work is in three files: planner.cpp (what each op reads, where it runs, what is
// recomputed), planner_groups.cpp (grouping by the rules, nested reductions, the cut) and
// planner_build.cpp (one fused program per group).

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tessera/fusion/nesting.hpp"
#include "tessera/fusion/plan.hpp"
#include "tessera/program/interpreter.hpp"

// Names of the planner's own, apart from the rest of detail::.
namespace tessera::detail::planning {

inline std::string short_name(const std::string& label) {
  auto open = label.find('[');
  auto close = label.rfind(']');
  return open == std::string::npos ? label : label.substr(open + 1, close - open - 1);
}

inline bool is_scalar_domain(const Task& t) { return t.args[t.key].store->ndim() == 0; }

// Launch domains are views that induce a tiling (every view the API makes does).
inline Tiling launch_tiling(const Arg& key) { return induced(key.store->tiling(), key.view).value_or(Tiling{}); }

struct ViewKey {
  int store;
  View view;
  bool renamed = false;  // the fresh buffer of a renamed store, apart from its current one
  bool operator<(const ViewKey& o) const {
    if (store != o.store) return store < o.store;
    if (renamed != o.renamed) return renamed < o.renamed;
    return view < o.view;
  }
};

// Rule 7: a group that spans this many ops ends where the loop repeats. A grown window then runs
// a long loop body (Black-Scholes: 65 ops) one iteration per kernel: the kernel stays the same
// however far the window grows (nothing new to compile mid-run), and no kernel computes
// iterations whose results the next one overwrites. Default windows (64 ops) never reach it.
constexpr int kLoopSpan = 64;

class Planner {
 public:
  Planner(const std::vector<Task>& ops, const CanonicalWindow& w, bool everything)
      : ops_(ops), w_(w), everything_(everything), n_(static_cast<int>(ops.size())) {}

  Plan run();

 private:
  struct Group {
    std::vector<int> ops;
    std::string reason = "end of window";
    std::set<int> renamed;              // stores written into a fresh buffer (rule 3 lifted)
    std::set<int> recomputed_from_old;  // of those, stores that ops recomputed after the write read
    int nested_outer = -1;  // an outer reduction of the op before it; so are the ops after it (nested_reduction)
    int epilogue = -1;      // ops[epilogue..]: the epilogue of the group's reductions (epilogue_refusal)
    int sweep = -1;         // ops[sweep], the last: a reduction sweeping the rows again (sweep_refusal)
  };

  // Rule 3 is lifted by renaming when the write covers at least half of the store: the frame
  // copy then moves at most as much as the write itself.
  bool can_rename(int store, const View& view) const;

  // Where the program's loop starts in this window, for rule 7 and the cut: the window's first op,
  // since windows are cut where it repeats, unless it never repeats. Then the window begins with
  // code before the loop (a program's setup, recorded unflushed before its loop): the loop starts
  // at the first op from which the ops repeat one period of at least kLoopSpan later (the ops
  // [p, p + L) equal [p + L, p + 2L)). Without this, such a window fuses whole, grows up to its
  // limit, and its kernel (setup and several iterations) is one that no later window repeats.
  int find_loop_op() const;

  // Per op: which stores it reads and writes, and the stores its values depend on (roots_).
  void analyse();

  // Whether an op in (after, upto] depends on store s (has it among its roots_).
  bool depends_between(int s, int after, int upto) const;

  // Which ops are recomputed inside their readers (floating), and so which op produces each
  // store that readers recompute; again in each planning round, as pinned_ grows.
  void choose_floating();

  bool read_by_task(int store) const;

  // Rules 2 and 3 compare the views a group reads and writes a store through: two different
  // views conflict only where their elements can meet (may_meet: their bounding boxes intersect
  // and no step keeps them apart), so a reflective boundary `h(all, 0).assign(h(all, 1))` joins
  // the group that read h(all, 1).
  static bool overlap(const View& a, const View& b) { return may_meet(a, b); }
  // A view written in the group that a read or write through `view` conflicts with, or nullptr.
  static const View* conflicting(const std::map<int, std::vector<View>>& written, int store, const View& view);
  // Whether a read of (store, view) takes the value the group stored there (a register).
  static bool forwarded(const std::map<int, std::vector<View>>& written, const ViewKey& r);

  // Launch domains (rule 1). An op whose results are temporaries read whole, and only by later
  // ops of the window, has no tiling of its own to keep: it is flexible, and runs over the launch
  // domain of its first reader (recursively: a chain of sums runs over the domain of the
  // statement's assign). Its operands are then read through their views relative to that domain
  // (halos where shifted), and its results live in registers. That holds only if every reader
  // lands in the flexible op's group (else the result would be stored, tiled like the domain it
  // ran over rather than like its own store): a flexible op for which grouping and the cut do not
  // achieve that stops being flexible, and the window is grouped again.
  bool flexible(int i) const;

  // The grouped ops that read op i's results: its readers, and for readers recomputed inline
  // (floating), the ops they are inlined into.
  std::vector<int> consumers(int i) const;

  void choose_domains();

  // Whether every input of a recomputed (floating) op that is written after it, up to one of its
  // readers, is written only in the group of each kernel that recomputes it, into a fresh buffer
  // there (renamed: the recomputation reads the values from before the group). Otherwise the
  // first such op is pinned (stored where it runs), and the window is planned again.
  bool recomputations_hold();

  // The launch domain op i runs over (its anchor's key view).
  Tiling launch_of(int i) const;

  // Whether elementwise op i is recomputed inside its readers instead of being stored (see the top
  // of the file). Its result must be a temporary (created by i, no user handle, written whole),
  // and the byte model must favour it: storing costs one write plus one read per reader;
  // recomputing costs, per reader, the inputs of i that neither the reader nor an op between i
  // and it depends on (roots_: those are most likely read by the reader's kernel anyway). An input of i may be
  // written after i, up to a reader, only in the reader's group and into a fresh buffer (renamed),
  // which the recomputation reads the old values from: recomputations_hold() checks that once
  // the groups are formed, and stores i otherwise.
  bool rematerialize(int i);

  // Whether op i, recomputed, recomputes an op through a view that is not its whole result
  // (memoized: choose_floating() decides the ops before i first, and they stay decided).
  bool recomputes_shifted(int i);

  // Whether op i's values depend on where the element is, seen through the ops it will inline
  // (memoized per planning round, like reads_of).
  bool is_positional(int i) const;

  // Does op i load argument a (as opposed to only storing it)?
  bool reads(int i, int a) const { return loads_[i][a]; }

  // The stores op i reads, seen through the ops it will inline: each view of a store that one op
  // loads once, in the order of their first reads; `by`, if given, gets the op that loads each (i,
  // or an op inlined into it).
  void effective_reads(int i, std::vector<ViewKey>& out, std::vector<int>* by = nullptr) const;

  // A read of effective_reads, and whether a reader of the op's result through a view reads it
  // through that view composed with this one (not where a 0-d store is read, or lies between).
  struct EffectiveRead {
    ViewKey key;
    int loader;
    bool composes;
    bool operator==(const EffectiveRead& o) const {
      return key.store == o.key.store && loader == o.loader && composes == o.composes && key.view == o.key.view;
    }
  };

  // Op i's effective reads, computed once per planning round (producer_ changes only in
  // choose_floating) from those of the ops it inlines, composed with the views it reads their
  // results through (composition is associative: reading p through v, inside a reader that reads
  // i through w, is reading p through compose(v, w)). Expanding the ops it inlines afresh at every
  // call instead visited each path through them: a window of 512 ops of a shallow-water step
  // took about 0.5 s to plan.
  const std::vector<EffectiveRead>& reads_of(int i) const;

  // The view an argument of an op inlined through `through` reads (0-d stores are read whole).
  static View seen_through(const Arg& arg, const View* through);

  // A store written by a group stays visible after op i (so it is a kernel argument) if a user
  // handle or a later op can read it, or it existed before the window.
  bool visible_after(int store, int i) const;

  // Rule 6: how many kernel arguments the group would have with op i: the views it reads from
  // outside the group, and the stores it writes that are visible after op i. An upper bound: a
  // later op may still turn a written store into a temporary (reads of stores written in the
  // group are forwarded registers, never arguments). `visible` holds the group's written stores
  // visible after op i - 1; those that op i reads last are dropped here, each once.
  std::size_t arguments_with(int i, const std::vector<ViewKey>& reads_i, const std::vector<char>& old_read,
                             const std::set<ViewKey>& external, const std::map<int, std::vector<View>>& written,
                             std::set<int>& visible) const;

  // Whether op i reduces, along an axis, the result of the current group's reduction along an
  // axis inside the group's kernel (a nested reduction, nesting.hpp); returns why not ("" if it
  // does). The group's last op must be its only reduction, whose result is a temporary read by op
  // i only, and nothing else the group writes may be visible after it: the kernel, over the
  // result's domain, then stores nothing but op i's outputs. Nesting must not move data that
  // stays in place today: an operand aligned with the group's launch domain, which cuts a reduced
  // dimension, would have to be gathered (the fallback then stores the inner result, as before).
  // Whether op i is an outer reduction of op inner's result, read whole and alone (the part of
  // nested_reduction about op i itself); returns why not ("" if it is).
  std::string outer_reduction(int i, int inner) const;

  // The other readers of the inner reduction's result, when each is an outer reduction of it
  // like op i (k-means' argmin and min of the distances): along the same dimension, into a result
  // of the same tiling, and after op i with only ops recomputed inline between them. They nest
  // into op i's kernel too. nullopt where some other reader is not such.
  std::optional<std::vector<int>> nested_siblings(int i, int inner) const;

  std::string nested_reduction(int i, const Group& group, const std::set<ViewKey>& external) const;

  // Whether op i may join the current group's epilogue (Program::epilogue, nesting.hpp): run once
  // per row of the group's reductions along the last dimension, reading their results from
  // registers. Returns why not ("" if it may). `starting`: op i would begin the epilogue; `body`
  // the stores the group's ops before the epilogue read or write, `body_written` those they write.
  std::string epilogue_refusal(int i, const Group& group, const std::vector<ViewKey>& reads_i,
                               const std::vector<char>& reduced, const std::set<int>& body,
                               const std::set<int>& body_written, const Tiling& body_domain, bool starting) const;

  // Whether op i, a reduction along dimension 1 (a column's sum) over the group's 2-D domain,
  // may sweep the rows once more after the group's reductions along the last dimension, reading
  // their results (Program::sweep): logistic regression's gradient (y - sigmoid(X @ w)) @ X,
  // whose X is then read once. Returns why not ("" if it may).
  std::string sweep_refusal(int i, const Group& group, const std::vector<ViewKey>& reads_i,
                            const std::vector<char>& reduced, const std::map<int, std::vector<View>>& written,
                            const Tiling& domain) const;

  void form_groups();

  // Where this window stops: everything on a flush; otherwise before the last group, or, if the
  // window is one group, where the op stream repeats its first op (a loop's next iteration).
  void choose_cut();

  // Whether op i ends a group and its results are temporaries read only by ops at or after the
  // cut: then it stays in the window with them. A window fills up in the middle of a statement,
  // such as the first op of the loop's next iteration, whose result is still held by the
  // expression being built (so it is no temporary yet); in the next window it is, and can be
  // rematerialized or fused with its readers instead of being stored now and loaded back.
  bool feeds_only_kept(int i) const;

  // A scalar op read by an op that stays in the window stays with it (it costs nothing until a
  // consumer inlines it) instead of running as a kernel of its own now; so do the scalar ops it
  // reads. Readers come after their producers, so one backward pass settles it.
  void find_deferred();
  bool deferred(int i) const { return deferred_[i]; }

  bool must_materialize(int i) const;

  int written_store(int i) const;

  // A store written in a group must be kept if anything can see it after the group.
  // A floating reader is recomputed where its own readers are: the store is live if they are.
  bool live_after(int store, const std::vector<int>& group) const;

  struct Builder {
    PlannedGroup g;
    std::map<ViewKey, int> arg_index;
    // The register last stored to (store, view) in this group, and the op that stored it.
    std::map<ViewKey, std::pair<int, int>> forwarded;
    std::map<std::pair<int, View>, int> inlined;  // (floating op, view its result is read through) -> register
    std::vector<int> elided;                      // temporaries never allocated
    // A nested reduction: the inner op folds into Program::nested, the outer op reads its result.
    int nested_inner = -1, nested_outer = -1;  // nested_outer: the first outer reduction
    std::vector<int> outers;                   // all of them
    const Nesting* nesting = nullptr;
    bool outer(int i) const { return std::find(outers.begin(), outers.end(), i) != outers.end(); }
    // An epilogue (Program::epilogue): its ops' coordinates lifted into the reduction's domain, and
    // the accumulator slot of each reduction's result store, which its loads read instead.
    std::optional<View> lift;
    std::map<int, int> result_slot;
    bool sweeping = false;  // emitting a sweep (Program::sweep): its loads of the results read them too

    int arg(int store, const View& view, bool written, bool renamed = false) {
      auto [it, fresh] = arg_index.emplace(ViewKey{store, view, renamed}, static_cast<int>(g.args.size()));
      if (fresh)
        g.args.push_back({store, view, written, renamed});
      else
        g.args[it->second].written = g.args[it->second].written || written;
      return it->second;
    }
    int reg() { return g.program.registers++; }
  };

  // Emits op i into the builder; returns the register of the value it stored (scalar ops).
  // `through`: op i is inlined into a reader that reads its result through this view.
  int emit(Builder& b, int i, const Group* group, const View* through = nullptr);

  PlannedGroup build_group(const Group& group);

  // Whether floating op i could have joined group g (rules 1, 2 and 4), which would then have
  // stored its result for a later kernel to load: the fusion log calls such an op rematerialized.
  bool could_join(const Group& g, int i) const;

  // tessera::fused[sqrt,multiply,...+57]: short enough for profiler timelines.
  std::string fused_label(const std::vector<int>& group) const;

  // A task with partition constraints: its arguments as they are (its body reads and writes
  // memory), its body taken from the window being executed (PlannedGroup::task_op).
  PlannedGroup build_task(const Group& group);

  PlannedGroup build_scalar(int i);

  // The domain (geometry only: the key view of the first op's anchor) and register allocation.
  // A sweep's code (Program::sweep), from `start`: what is the same along a row (the row
  // reductions' results, constants, operands stretched along the row, and what only they
  // compute) moves first, to run once per row; the rest runs at every element. Slots are
  // renumbered so that the sweep's own, the program's outputs, come first and the `rows` slots
  // of the reductions along the rows last.
  static void split_sweep(Builder& b, int start, int rows);

  void finish(Builder& b, int first_index);

  // Linear scan over the straight-line code: a register is reused once its last reader has run.
  static void allocate_registers(Program& p);

  const std::vector<Task>& ops_;
  const CanonicalWindow& w_;
  bool everything_;
  int n_;
  int cut_ = 0;
  int loop_op_ = 0;                        // the op the loop's iterations start with (find_loop_op)
  const Group* previous_group_ = nullptr;  // the group built before (for the fusion log)
  std::set<int> computed_;                 // floating array ops inlined so far (for the fusion log)
  std::vector<int> last_write_, producer_;
  std::vector<std::vector<int>> writers_;  // store -> ops that write it, in order
  std::vector<bool> created_, floating_, deferred_, flexible_;
  std::vector<bool> pinned_;  // ops stored because a recomputation of them would read a changed input
  // op -> the stores its values depend on: those it loads, and those the ops creating them
  // depend on (the byte model's guess at what a kernel holding the op reads anyway)
  std::vector<std::vector<int>> roots_;
  std::vector<std::vector<int>> root_users_;  // store -> the ops with it among their roots_, in order
  std::vector<signed char> shifted_cone_;     // recomputes_shifted's answers (-1: not yet asked)
  // Memos of one planning round (reset by choose_floating, when producer_ changes).
  mutable std::vector<signed char> positional_;  // is_positional's answers (-1: not yet asked)
  mutable std::vector<char> reads_known_;        // reads_of's ...
  mutable std::vector<std::vector<EffectiveRead>> reads_memo_;
  std::vector<int> anchor_;  // op -> the op whose key view is its launch domain (choose_domains)
  std::vector<std::vector<int>> readers_;
  std::vector<std::vector<bool>> loads_;  // op -> arg -> loaded by the op
  std::vector<Group> groups_;
};

}  // namespace tessera::detail::planning

#include "tessera/comm/exchange.hpp"

#include <map>

#include "tessera/core/context.hpp"
#include "tessera/core/profiling.hpp"

namespace tessera::detail {
namespace {

// Tags name the direction of travel on the process grid (sign of dst - src per dimension), so a
// message can be matched to its geometry in a trace; redistributions use a separate range.
int geometric_tag(const ProcessGrid& grid, int src, int dst, bool halo) {
  Index3 a = grid.coords(src), b = grid.coords(dst);
  int code = 0;
  for (int d = 0; d < kMaxDims; ++d) code = code * 3 + (b[d] > a[d] ? 2 : b[d] < a[d] ? 0 : 1);
  return (halo ? 100 : 200) + code;
}

// Where a store's tiling holds copies, the receiver takes each piece from the copy at its own
// coordinates along the copying grid axes: every piece has exactly one sender, and the ranks of a
// grid row read their row's copy.
bool serves(const Tiling& t, const ProcessGrid& store_grid, int sender, int receiver) {
  const unsigned copies = t.ndim == 0 ? 0 : t.replicated_axes(store_grid.ndim());
  if (copies == 0) return true;
  const Index3 a = store_grid.coords(sender), b = store_grid.coords(receiver);
  for (int g = 0; g < store_grid.ndim(); ++g)
    if ((copies & (1u << g)) && a[g] != b[g]) return false;
  return true;
}

}  // namespace

Fetch::Fetch(Communicator& comm, const ProcessGrid& grid, std::vector<FetchRequest> requests, std::string label)
    : comm_(comm), requests_(std::move(requests)), label_(std::move(label)) {
  ScopedRegion region(label_);
  const int me = comm.rank(), nranks = comm.size();
  std::map<int, std::vector<Piece>> to_send;
  std::map<int, std::size_t> send_bytes, receive_bytes;
  bool halo = true;
  for (const FetchRequest& req : requests_) {
    halo = halo && req.in_place;
    Store& s = *req.store;
    const int esize = size_of(s.dtype());
    const Box& mine = s.owned();
    const Box& my_need = req.needed[me];
    const ProcessGrid& store_grid = req.store_grid ? *req.store_grid : grid;
    for (int q = 0; q < nranks; ++q) {
      if (q == me) continue;
      Box owned_q = s.tiling().tile(store_grid.coords(q));
      Box in = intersect(my_need, owned_q);
      if (!in.empty() && serves(s.tiling(), store_grid, q, me)) {
        to_receive_[q].push_back({&req, in, receive_bytes[q]});
        receive_bytes[q] += static_cast<std::size_t>(in.volume()) * esize;
      }
      Box out = intersect(req.needed[q], mine);
      if (!out.empty() && serves(s.tiling(), store_grid, me, q)) {
        to_send[q].push_back({&req, out, send_bytes[q]});
        send_bytes[q] += static_cast<std::size_t>(out.volume()) * esize;
      }
    }
    if (!req.in_place) {
      Box local = intersect(my_need, mine);
      copy_box(s.data(), s.layout(), req.destination, req.destination_layout, local, esize, label_.c_str());
    }
  }

  std::vector<Message> sends;
  for (auto& [peer, pieces] : to_send) {
    buffers_.push_back(allocate(send_bytes[peer], "tessera::halo[send]", false));
    char* buf = buffers_.back().data();
    for (const Piece& p : pieces) {
      Store& s = *p.request->store;
      copy_box(s.data(), s.layout(), buf + p.offset, Layout::row_major(p.box), p.box, size_of(s.dtype()),
               label_.c_str());
    }
    sends.push_back({peer, geometric_tag(grid, me, peer, halo), buf, send_bytes[peer]});
  }
  for (auto& [peer, pieces] : to_receive_) {
    buffers_.push_back(allocate(receive_bytes[peer], "tessera::halo[recv]", false));
    receives_.push_back({peer, geometric_tag(grid, peer, me, halo), buffers_.back().data(), receive_bytes[peer]});
    received_ += static_cast<std::int64_t>(receive_bytes[peer]);
  }
  comm_.start_exchange(sends, receives_);
}

std::int64_t Fetch::finish() {
  if (finished_) return received_;
  finished_ = true;
  ScopedRegion region(label_);
  comm_.finish_exchange();
  for (const Message& m : receives_) {
    for (const Piece& p : to_receive_[m.peer]) {
      Store& s = *p.request->store;
      copy_box(m.data + p.offset, Layout::row_major(p.box), p.request->destination, p.request->destination_layout,
               p.box, size_of(s.dtype()), label_.c_str());
    }
  }
  for (auto& b : buffers_) recycle(std::move(b));
  return received_;
}

Fetch::~Fetch() { finish(); }

std::int64_t fetch(Communicator& comm, const ProcessGrid& grid, std::vector<FetchRequest> requests, std::string label) {
  return Fetch(comm, grid, std::move(requests), std::move(label)).finish();
}

}  // namespace tessera::detail

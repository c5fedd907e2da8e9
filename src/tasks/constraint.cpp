#include "tessera/tasks/constraint.hpp"

#include "tessera/core/error.hpp"
#include "tessera/tasks/image.hpp"

namespace tessera::detail {
namespace {

std::string shape_of(const View& v) {
  std::string out = "(";
  for (int d = 0; d < v.ndim; ++d) out += (d ? ", " : "") + std::to_string(v.extent[d]);
  return out + (v.ndim == 1 ? ",)" : ")");
}

// The shape every constraint but image() asks for: the launch domain's.
void require_domain_shape(const Constraint& c, const std::string& task, int index, const View& view,
                          const View& domain) {
  if (view.ndim != domain.ndim || view.extent != domain.extent)
    raise(task, ": ", c.to_string(), " of argument ", index, " needs a view of the launch domain's shape ",
          shape_of(domain), ", but the argument's view has shape ", shape_of(view));
}

class Align final : public Constraint {
 public:
  Kind kind() const override { return Kind::Align; }
  void validate(const std::string& task, int index, const Store&, const View& view, const View& domain) const override {
    require_domain_shape(*this, task, index, view, domain);
  }
  std::string to_string() const override { return "align"; }
};

class Broadcast final : public Constraint {
 public:
  explicit Broadcast(unsigned dims) : dims_(dims) {}
  Kind kind() const override { return Kind::Broadcast; }
  void validate(const std::string& task, int index, const Store&, const View& view, const View& domain) const override {
    require_domain_shape(*this, task, index, view, domain);
    for (int d = 0; d < view.ndim; ++d)
      if ((dims_ >> d & 1u) && view.moved_by(d) >= 0)
        raise(task, ": ", to_string(), " of argument ", index, " needs a view stretched along dimension ", d,
              ", but the view ", view, " moves along it");
  }
  std::string to_string() const override {
    std::string dims;
    for (int d = 0; d < kMaxDims; ++d)
      if (dims_ >> d & 1u) dims += (dims.empty() ? "" : ",") + std::to_string(d);
    return "broadcast(along dim " + dims + ")";
  }
  std::uint64_t signature() const override { return static_cast<std::uint64_t>(kind()) | std::uint64_t(dims_) << 8; }

 private:
  unsigned dims_;
};

class Bloat final : public Constraint {
 public:
  explicit Bloat(std::int64_t width) : width_(width) {}
  Kind kind() const override { return Kind::Bloat; }
  void validate(const std::string& task, int index, const Store&, const View& view, const View& domain) const override {
    if (width_ < 0) raise(task, ": ", to_string(), " of argument ", index, ": a halo width must be at least 0");
    require_domain_shape(*this, task, index, view, domain);
  }
  std::string to_string() const override { return "bloat(" + std::to_string(width_) + ")"; }
  std::uint64_t signature() const override {
    return static_cast<std::uint64_t>(kind()) | static_cast<std::uint64_t>(width_) << 8;
  }
  std::int64_t bloat() const override { return width_; }

 private:
  std::int64_t width_;
};

class Image final : public Constraint {
 public:
  explicit Image(std::shared_ptr<const ImagePlan> plan) : plan_(std::move(plan)) {}
  Kind kind() const override { return Kind::Image; }
  void validate(const std::string& task, int index, const Store& store, const View& view, const View&) const override {
    const std::optional<Tiling> t = induced(store.tiling(), view);
    if (view.ndim != 1 || !t || !t->matches(plan_->tiling))
      raise(task, ": ", to_string(), " of argument ", index, " needs a 1-D array of length ", plan_->tiling.extent[0],
            " tiled as the image was computed, but got a view of shape ", shape_of(view),
            t && view.ndim == 1 ? " tiled otherwise" : "");
  }
  std::string to_string() const override {
    return "image(" + std::to_string(plan_->total_ghosts) + " entries referenced off-rank)";
  }
  const ImagePlan* image() const override { return plan_.get(); }

 private:
  std::shared_ptr<const ImagePlan> plan_;
};

}  // namespace

std::shared_ptr<const Constraint> align() {
  static const auto a = std::make_shared<const Align>();
  return a;
}
std::shared_ptr<const Constraint> broadcast(unsigned dims) { return std::make_shared<const Broadcast>(dims); }
std::shared_ptr<const Constraint> bloat(std::int64_t width) { return std::make_shared<const Bloat>(width); }
std::shared_ptr<const Constraint> image(std::shared_ptr<const ImagePlan> plan) {
  return std::make_shared<const Image>(std::move(plan));
}

}  // namespace tessera::detail

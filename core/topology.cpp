#include "core/topology.hpp"
#include "core/topology_stats.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <mutex>
#include <optional>
#include <set>
#include <unordered_map>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/visitors.hpp>

namespace brigade {

std::string_view device_kind_name(DeviceKind k) {
  switch (k) {
    case DeviceKind::kGpu: return "gpu";
    case DeviceKind::kCpu: return "cpu";
    case DeviceKind::kTpu: return "tpu";
  }
  return "?";
}

std::string_view link_class_name(LinkClass c) {
  switch (c) {
    case LinkClass::kNvlink: return "nvlink";
    case LinkClass::kPcie: return "pcie";
    case LinkClass::kInfiniband: return "infiniband";
    case LinkClass::kEthernet: return "ethernet";
    case LinkClass::kSharedMemory: return "shm";
  }
  return "?";
}

std::optional<LinkClass> parse_link_class(std::string_view s) {
  for (int i = 0; i < kNumLinkClasses; ++i) {
    auto c = static_cast<LinkClass>(i);
    if (link_class_name(c) == s) return c;
  }
  if (s == "ib") return LinkClass::kInfiniband;
  if (s == "shared-memory") return LinkClass::kSharedMemory;
  return std::nullopt;
}

// Routes are asked for by (source, destination) pair, and a run asks for few
// destinations per source (a pipeline stage sends to its neighbours) but from
// every source: each source's shortest-path tree is computed once, and a
// Route is materialised only for the destinations asked for. (Building all
// of them eagerly, a million Routes on 1024 devices, cost more than the
// simulation they served: docs/PERFORMANCE.md.)
struct Topology::RouteCache {
  // Per source device: the routes asked for, and, once more than
  // kPairSearches destinations were asked for, the source's shortest-path
  // tree (the channel into each vertex on its chosen path).
  struct Source {
    std::vector<int> via;                   // empty until the tree is built
    std::unordered_map<int, Route> routes;  // by destination; node-based, so references stay valid
    int pair_searches = 0;
  };
  std::mutex mu;
  std::shared_ptr<const void> graph;  // the Graph below, built on first use
  std::vector<Source> by_source;
  // Scratch of the pair search, by vertex; a vertex's entries are valid when
  // its stamp is the search's epoch (no clearing between searches).
  std::vector<std::uint32_t> seen_s, seen_d, in_dag;
  std::vector<int> ds, dd, via;
  std::vector<double> bw, lat;
  std::vector<int> level_s, level_d;  // the vertices of each side, level by level
  std::vector<size_t> off_s, off_d;   // where each level starts in level_s / level_d
  std::vector<int> dag, dag_off;      // the shortest-path vertices, by hops from the source
  std::uint32_t epoch = 0;
};

Topology::Topology() : routes_(std::make_shared<RouteCache>()) {}
Topology::Topology(const Topology& o) = default;
Topology& Topology::operator=(const Topology& o) = default;
Topology::Topology(Topology&&) noexcept = default;
Topology& Topology::operator=(Topology&&) noexcept = default;
Topology::~Topology() = default;

// A copy may share the cache: never clear it in place, start a fresh one.
void Topology::invalidate_routes() { routes_ = std::make_shared<RouteCache>(); }

int Topology::add_device(Device d) {
  d.id = num_devices();
  if (d.name.empty()) d.name = std::string(device_kind_name(d.kind)) + std::to_string(d.id);
  min_memory_bytes_ = devices_.empty() ? d.memory_bytes : std::min(min_memory_bytes_, d.memory_bytes);
  max_memory_bytes_ = devices_.empty() ? d.memory_bytes : std::max(max_memory_bytes_, d.memory_bytes);
  devices_.push_back(std::move(d));
  invalidate_routes();
  return devices_.back().id;
}

int Topology::add_switch(Switch s) {
  switches_.push_back(std::move(s));
  invalidate_routes();
  return num_vertices() - 1;
}

int Topology::add_link(Link l) {
  links_.push_back(std::move(l));
  invalidate_routes();
  return static_cast<int>(links_.size()) - 1;
}

int Topology::num_nodes() const {
  int n = 0;
  for (const Device& d : devices_) n = std::max(n, d.node + 1);
  return n;
}

std::string Topology::vertex_name(int v) const {
  if (v >= 0 && v < num_devices()) return devices_[static_cast<size_t>(v)].name;
  const int s = v - num_devices();
  if (s >= 0 && s < static_cast<int>(switches_.size())) return switches_[static_cast<size_t>(s)].name;
  return "vertex" + std::to_string(v);
}

int Topology::channel_from(ChannelId c) const {
  const Link& l = links_[static_cast<size_t>(link_of(c))];
  return (c % 2 == 0) ? l.a : l.b;
}

int Topology::channel_to(ChannelId c) const {
  const Link& l = links_[static_cast<size_t>(link_of(c))];
  return (c % 2 == 0) ? l.b : l.a;
}

namespace {

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS,
                                    boost::no_property, boost::property<boost::edge_index_t, int>>;

Graph make_graph(int vertices, const std::vector<Link>& links) {
  Graph g(static_cast<size_t>(vertices));
  for (size_t i = 0; i < links.size(); ++i)
    boost::add_edge(static_cast<size_t>(links[i].a), static_cast<size_t>(links[i].b),
                    static_cast<int>(i), g);
  return g;
}

std::vector<int> hop_distances(const Graph& g, int source) {
  std::vector<int> dist(boost::num_vertices(g), -1);
  dist[static_cast<size_t>(source)] = 0;
  boost::breadth_first_search(
      g, boost::vertex(static_cast<size_t>(source), g),
      boost::visitor(boost::make_bfs_visitor(boost::record_distances(
          boost::make_iterator_property_map(dist.begin(), boost::get(boost::vertex_index, g)),
          boost::on_tree_edge()))));
  return dist;
}

// The route src -> dst when it is one or two hops long, found from the two
// endpoints' own links alone (O(degree), no tree over the whole topology:
// a cluster's fabric switch puts every pair of devices two hops apart, and a
// tree per source over 16,384 GPUs cost O(V) time and memory for each of
// the thousands of sources a plan's groups ask from; issue 18). It picks
// what the shortest-path tree below would: the widest bottleneck, then the
// lowest latency, then the lowest middle vertex, then the lowest link index
// (the order a vertex's edges are met in). nullopt when the route is longer.
std::optional<Route> short_route(const Graph& g, const std::vector<Link>& links, int src, int dst) {
  struct Near {
    int vertex, link;
    double bw, lat;
  };
  std::vector<Near> near;  // src's neighbours, each by its best link
  auto [ei, ee] = boost::out_edges(static_cast<size_t>(src), g);
  for (; ei != ee; ++ei) {
    const int u = static_cast<int>(boost::target(*ei, g));
    const int li = boost::get(boost::edge_index, g, *ei);
    const Link& l = links[static_cast<size_t>(li)];
    auto it = std::find_if(near.begin(), near.end(), [u](const Near& n) { return n.vertex == u; });
    if (it == near.end()) {
      near.push_back({u, li, l.bandwidth_bytes_per_second, l.latency_seconds});
    } else if (l.bandwidth_bytes_per_second != it->bw ? l.bandwidth_bytes_per_second > it->bw
                                                      : l.latency_seconds < it->lat) {
      *it = {u, li, l.bandwidth_bytes_per_second, l.latency_seconds};
    }
  }
  auto channel_into = [&](int li, int from) {
    return channel_of(li, /*reverse=*/links[static_cast<size_t>(li)].a != from);
  };
  Route r;
  auto finish = [&]() {
    double slowest = std::numeric_limits<double>::infinity();
    for (ChannelId ch : r.channels) {
      const Link& l = links[static_cast<size_t>(link_of(ch))];
      if (l.bandwidth_bytes_per_second < slowest) {
        slowest = l.bandwidth_bytes_per_second;
        r.slowest_class = l.link_class;
      }
    }
    return std::optional<Route>{std::move(r)};
  };
  for (const Near& n : near)
    if (n.vertex == dst) {
      r.channels = {channel_into(n.link, src)};
      r.latency_seconds = 0 + n.lat;
      r.bandwidth_bytes_per_second = n.bw;
      return finish();
    }
  // Two hops: the best middle vertex among the common neighbours, met in
  // the order of dst's edges (as the tree meets them).
  const Near* best_middle = nullptr;
  int best_link = -1;
  double best_bw = 0, best_lat = 0;
  auto [di, de] = boost::out_edges(static_cast<size_t>(dst), g);
  for (; di != de; ++di) {
    const int m = static_cast<int>(boost::target(*di, g));
    auto it = std::find_if(near.begin(), near.end(), [m](const Near& n) { return n.vertex == m; });
    if (it == near.end()) continue;
    const int li = boost::get(boost::edge_index, g, *di);
    const Link& l = links[static_cast<size_t>(li)];
    const double cbw = std::min(it->bw, l.bandwidth_bytes_per_second);
    const double clat = it->lat + l.latency_seconds;
    bool better = best_middle == nullptr;
    if (!better) {
      if (cbw != best_bw)
        better = cbw > best_bw;
      else if (clat != best_lat)
        better = clat < best_lat;
      else
        better = m < best_middle->vertex;
    }
    if (better) best_middle = &*it, best_link = li, best_bw = cbw, best_lat = clat;
  }
  if (best_middle == nullptr) return std::nullopt;
  r.channels = {channel_into(best_middle->link, src), channel_into(best_link, best_middle->vertex)};
  r.latency_seconds = best_lat;
  r.bandwidth_bytes_per_second = best_bw;
  return finish();
}

}  // namespace

Status Topology::validate() const {
  if (devices_.empty()) return Status::error("topology has no devices; expected at least one");
  std::set<std::string> names;
  for (const Device& d : devices_) {
    if (!names.insert(d.name).second)
      return Status::error("topology: device name '" + d.name + "' is used twice; expected unique names");
    if (!(d.memory_bytes > 0))
      return Status::error("topology: device '" + d.name + "' has memory " +
                           std::to_string(d.memory_bytes) + "; expected a positive size");
  }
  for (const Switch& s : switches_)
    if (!names.insert(s.name).second)
      return Status::error("topology: name '" + s.name + "' is used twice; expected unique names");
  const int v = num_vertices();
  for (size_t i = 0; i < links_.size(); ++i) {
    const Link& l = links_[i];
    const std::string what = "topology: link '" + (l.name.empty() ? std::to_string(i) : l.name) + "'";
    if (l.a < 0 || l.a >= v || l.b < 0 || l.b >= v)
      return Status::error(what + " joins a vertex that does not exist; expected vertices 0.." +
                           std::to_string(v - 1));
    if (l.a == l.b) return Status::error(what + " joins '" + vertex_name(l.a) + "' to itself");
    if (!(l.bandwidth_bytes_per_second > 0))
      return Status::error(what + " has bandwidth " + std::to_string(l.bandwidth_bytes_per_second) +
                           "; expected a positive bandwidth");
    if (!(l.latency_seconds >= 0))
      return Status::error(what + " has latency " + std::to_string(l.latency_seconds) +
                           "; expected a latency >= 0");
  }
  if (num_devices() > 1) {
    // Connected: every device in device 0's component. Union-find over the
    // links (linear, one vector), not a BFS over a graph built for it: a
    // scenario is validated every time it is read, routes are built later
    // and only for the pairs asked for.
    std::vector<int> parent(static_cast<size_t>(v));
    for (int i = 0; i < v; ++i) parent[static_cast<size_t>(i)] = i;
    auto root = [&](int x) {
      while (parent[static_cast<size_t>(x)] != x) {
        int& up = parent[static_cast<size_t>(x)];
        up = parent[static_cast<size_t>(up)];  // path halving
        x = up;
      }
      return x;
    };
    for (const Link& l : links_) parent[static_cast<size_t>(root(l.a))] = root(l.b);
    const int first = root(devices_[0].id);
    for (const Device& d : devices_)
      if (root(d.id) != first)
        return Status::error("topology: device '" + d.name + "' cannot reach device '" +
                             devices_[0].name + "'; expected a connected topology");
  }
  return Status::ok();
}

namespace {

// Among shortest paths: the widest bottleneck, then the lowest latency, then
// the lowest predecessor vertex; on a full tie (parallel links from one
// vertex) the first link in the graph's order. (bw, lat, via) of `x` are
// updated when the link from `u` is better.
inline void relax(const std::vector<Link>& links, int li, int u, int x, std::vector<double>& bw,
                  std::vector<double>& lat, std::vector<int>& via, const Topology& topo) {
  const Link& l = links[static_cast<size_t>(li)];
  const double cbw = std::min(bw[static_cast<size_t>(u)], l.bandwidth_bytes_per_second);
  const double clat = lat[static_cast<size_t>(u)] + l.latency_seconds;
  const ChannelId ch = channel_of(li, /*reverse=*/l.a != u);
  const int cur = via[static_cast<size_t>(x)];
  bool better = cur < 0;
  if (!better) {
    const double obw = bw[static_cast<size_t>(x)], olat = lat[static_cast<size_t>(x)];
    if (cbw != obw) better = cbw > obw;
    else if (clat != olat) better = clat < olat;
    else better = u < topo.channel_from(cur);
  }
  if (better) {
    bw[static_cast<size_t>(x)] = cbw;
    lat[static_cast<size_t>(x)] = clat;
    via[static_cast<size_t>(x)] = ch;
  }
}

}  // namespace

// Routes are the same whichever way they are found: a vertex's (bandwidth,
// latency, via) on its best shortest path depends only on the vertices one
// hop nearer the source on shortest paths, which, for a vertex on a shortest
// path to `dst`, are on such paths themselves. So the pair search below
// (both ends searched breadth first until they meet, then the relaxation
// over the shortest-path vertices alone, level by level) gives the tree's
// route bit for bit, at the cost of the few vertices near both ends instead
// of the whole graph: on a cluster of 16,384 GPUs behind one fabric switch,
// a tree per source was 16,384 passes over ~20 k vertices and ~0.5 MB each.
namespace {
std::atomic<std::uint64_t> trees_built{0};
std::atomic<bool> shortcut_on{true};
}  // namespace

std::uint64_t route_trees_built() {
  return trees_built.load(std::memory_order_relaxed);
}

void set_route_shortcut_enabled(bool on) { shortcut_on.store(on, std::memory_order_relaxed); }

const Route& Topology::route(int src, int dst) const {
  constexpr int kPairSearches = 16;  // then the source's tree
  std::lock_guard<std::mutex> lock(routes_->mu);
  RouteCache& rc = *routes_;
  auto& cache = rc.by_source;
  if (cache.empty()) cache.resize(devices_.size());
  RouteCache::Source& source = cache[static_cast<size_t>(src)];
  auto [it, inserted] = source.routes.try_emplace(dst);
  Route& r = it->second;
  if (!inserted) return r;
  const double inf = std::numeric_limits<double>::infinity();
  if (dst == src) {
    r.bandwidth_bytes_per_second = inf;
    return r;
  }
  if (dst < 0 || dst >= num_devices()) return r;  // validate() reports it
  const int nv = num_vertices();
  if (!rc.graph) rc.graph = std::make_shared<const Graph>(make_graph(nv, links_));
  const Graph& g = *static_cast<const Graph*>(rc.graph.get());

  // One or two hops (a cluster's devices behind their node's switch or the
  // fabric switch): from the two endpoints' own links, no search at all.
  if (source.via.empty() && shortcut_on.load(std::memory_order_relaxed)) {
    if (std::optional<Route> s = short_route(g, links_, src, dst)) {
      r = std::move(*s);
      return r;
    }
  }
  if (source.via.empty() && source.pair_searches >= kPairSearches) {
    // Many destinations from this source: its whole tree, once.
    trees_built.fetch_add(1, std::memory_order_relaxed);
    const std::vector<int> dist = hop_distances(g, src);
    std::vector<int> order(static_cast<size_t>(nv));
    for (int i = 0; i < nv; ++i) order[static_cast<size_t>(i)] = i;
    std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
      return dist[static_cast<size_t>(x)] < dist[static_cast<size_t>(y)];
    });
    std::vector<double> bw(static_cast<size_t>(nv), 0), lat(static_cast<size_t>(nv), inf);
    source.via.assign(static_cast<size_t>(nv), -1);  // channel into the vertex
    bw[static_cast<size_t>(src)] = inf;
    lat[static_cast<size_t>(src)] = 0;
    for (int x : order) {
      const int dx = dist[static_cast<size_t>(x)];
      if (dx <= 0) continue;
      auto [ei, ee] = boost::out_edges(static_cast<size_t>(x), g);
      for (; ei != ee; ++ei) {
        const int u = static_cast<int>(boost::target(*ei, g));
        if (dist[static_cast<size_t>(u)] != dx - 1) continue;
        relax(links_, boost::get(boost::edge_index, g, *ei), u, x, bw, lat, source.via, *this);
      }
    }
  }

  const std::vector<int>* via = &source.via;
  if (via->empty()) {
    ++source.pair_searches;
    const auto n = static_cast<size_t>(nv);
    if (rc.seen_s.size() != n) {
      rc.seen_s.assign(n, 0);
      rc.seen_d.assign(n, 0);
      rc.in_dag.assign(n, 0);
      rc.ds.assign(n, 0);
      rc.dd.assign(n, 0);
      rc.via.assign(n, -1);
      rc.bw.assign(n, 0);
      rc.lat.assign(n, 0);
      rc.epoch = 0;
    }
    if (++rc.epoch == 0) {  // wrapped: every stamp is stale again
      std::fill(rc.seen_s.begin(), rc.seen_s.end(), 0);
      std::fill(rc.seen_d.begin(), rc.seen_d.end(), 0);
      std::fill(rc.in_dag.begin(), rc.in_dag.end(), 0);
      rc.epoch = 1;
    }
    const std::uint32_t ep = rc.epoch;
    auto degree = [&](int v) { return boost::out_degree(static_cast<size_t>(v), g); };
    // Breadth first from both ends, a whole level of the cheaper side at a
    // time, until a vertex is seen from both: then the distance is a + b.
    rc.level_s.assign(1, src);
    rc.level_d.assign(1, dst);
    rc.off_s.assign({0, 1});
    rc.off_d.assign({0, 1});
    rc.seen_s[static_cast<size_t>(src)] = ep;
    rc.ds[static_cast<size_t>(src)] = 0;
    rc.seen_d[static_cast<size_t>(dst)] = ep;
    rc.dd[static_cast<size_t>(dst)] = 0;
    int a = 0, b = 0;
    bool met = false;
    while (!met) {
      const size_t fs = rc.off_s[static_cast<size_t>(a)], fe = rc.off_s[static_cast<size_t>(a) + 1];
      const size_t gs = rc.off_d[static_cast<size_t>(b)], ge = rc.off_d[static_cast<size_t>(b) + 1];
      if (fs == fe || gs == ge) return r;  // unreachable: validate() reports it
      size_t cost_s = 0, cost_d = 0;
      for (size_t i = fs; i < fe; ++i) cost_s += degree(rc.level_s[i]);
      for (size_t i = gs; i < ge; ++i) cost_d += degree(rc.level_d[i]);
      const bool from_src = cost_s <= cost_d;
      std::vector<int>& level = from_src ? rc.level_s : rc.level_d;
      std::vector<size_t>& off = from_src ? rc.off_s : rc.off_d;
      std::vector<std::uint32_t>& seen = from_src ? rc.seen_s : rc.seen_d;
      std::vector<int>& dist = from_src ? rc.ds : rc.dd;
      const std::vector<std::uint32_t>& other = from_src ? rc.seen_d : rc.seen_s;
      const int next = (from_src ? a : b) + 1;
      const size_t begin = from_src ? fs : gs, end = from_src ? fe : ge;
      for (size_t i = begin; i < end; ++i) {
        auto [ei, ee] = boost::out_edges(static_cast<size_t>(level[i]), g);
        for (; ei != ee; ++ei) {
          const auto u = static_cast<size_t>(boost::target(*ei, g));
          if (seen[u] == ep) continue;
          seen[u] = ep;
          dist[u] = next;
          level.push_back(static_cast<int>(u));
          met |= other[u] == ep;
        }
      }
      off.push_back(level.size());
      (from_src ? a : b) = next;
    }
    const int hops = a + b;
    // The shortest-path vertices by hops from the source: at hop a, those
    // seen from both ends at distances a and b; nearer the source, the
    // source side's vertices with a link to the next hop's; farther, the
    // destination side's with a link to the previous hop's.
    rc.dag.clear();
    rc.dag_off.assign(static_cast<size_t>(hops) + 2, 0);
    std::vector<std::vector<int>> by_hop(static_cast<size_t>(hops) + 1);
    for (size_t i = rc.off_s[static_cast<size_t>(a)]; i < rc.off_s[static_cast<size_t>(a) + 1]; ++i) {
      const auto v = static_cast<size_t>(rc.level_s[i]);
      if (rc.seen_d[v] == ep && rc.dd[v] == b) by_hop[static_cast<size_t>(a)].push_back(static_cast<int>(v));
    }
    auto mark = [&](int hop) {
      for (int v : by_hop[static_cast<size_t>(hop)]) {
        rc.in_dag[static_cast<size_t>(v)] = ep;
        rc.ds[static_cast<size_t>(v)] = hop;  // hops from the source, on both sides
      }
    };
    mark(a);
    auto links_to = [&](int v, int hop) {
      auto [ei, ee] = boost::out_edges(static_cast<size_t>(v), g);
      for (; ei != ee; ++ei) {
        const auto w = static_cast<size_t>(boost::target(*ei, g));
        if (rc.in_dag[w] == ep && rc.ds[w] == hop) return true;
      }
      return false;
    };
    for (int k = a - 1; k >= 0; --k) {
      for (size_t i = rc.off_s[static_cast<size_t>(k)]; i < rc.off_s[static_cast<size_t>(k) + 1]; ++i)
        if (links_to(rc.level_s[i], k + 1)) by_hop[static_cast<size_t>(k)].push_back(rc.level_s[i]);
      mark(k);
    }
    for (int k = a + 1; k <= hops; ++k) {
      const int j = hops - k;  // its distance from the destination
      for (size_t i = rc.off_d[static_cast<size_t>(j)]; i < rc.off_d[static_cast<size_t>(j) + 1]; ++i) {
        const int v = rc.level_d[i];
        // A vertex seen from both sides nearer the source is on an earlier hop.
        if (rc.in_dag[static_cast<size_t>(v)] == ep) continue;
        if (links_to(v, k - 1)) by_hop[static_cast<size_t>(k)].push_back(v);
      }
      mark(k);
    }
    // Relaxation, hop by hop, from each vertex to its links into the next hop.
    for (int k = 0; k <= hops; ++k)
      for (int v : by_hop[static_cast<size_t>(k)]) rc.via[static_cast<size_t>(v)] = -1;
    rc.bw[static_cast<size_t>(src)] = inf;
    rc.lat[static_cast<size_t>(src)] = 0;
    for (int k = 0; k < hops; ++k)
      for (int u : by_hop[static_cast<size_t>(k)]) {
        auto [ei, ee] = boost::out_edges(static_cast<size_t>(u), g);
        for (; ei != ee; ++ei) {
          const int x = static_cast<int>(boost::target(*ei, g));
          if (rc.in_dag[static_cast<size_t>(x)] != ep || rc.ds[static_cast<size_t>(x)] != k + 1) continue;
          relax(links_, boost::get(boost::edge_index, g, *ei), u, x, rc.bw, rc.lat, rc.via, *this);
        }
      }
    via = &rc.via;
  }
  if ((*via)[static_cast<size_t>(dst)] < 0) return r;  // unreachable: validate() reports it
  for (int x = dst; x != src;) {
    const ChannelId ch = (*via)[static_cast<size_t>(x)];
    r.channels.push_back(ch);
    x = channel_from(ch);
  }
  std::reverse(r.channels.begin(), r.channels.end());
  // The bottleneck and the latency along the path, in the order the
  // relaxation took them (from the source): the same sums bit for bit.
  double bw = inf, lat = 0;
  for (ChannelId ch : r.channels) {
    const Link& l = links_[static_cast<size_t>(link_of(ch))];
    bw = std::min(bw, l.bandwidth_bytes_per_second);
    lat = lat + l.latency_seconds;
  }
  r.latency_seconds = lat;
  r.bandwidth_bytes_per_second = bw;
  double slowest = inf;
  for (ChannelId ch : r.channels) {
    const Link& l = links_[static_cast<size_t>(link_of(ch))];
    if (l.bandwidth_bytes_per_second < slowest) {
      slowest = l.bandwidth_bytes_per_second;
      r.slowest_class = l.link_class;
    }
  }
  return r;
}

}  // namespace brigade

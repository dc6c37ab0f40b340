#include <partcl/models/nbody/essential_exchange.hpp>

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

#include <partcl/backend/error.hpp>
#include <partcl/dist/distributor.hpp>

namespace partcl {

namespace {

// A row of TreeGravity::node_rows: the node fields (cx, cy, cz, m, crit2, moments), the tight box
// (lo x y z, hi x y z) and the radius.
constexpr std::size_t row_fields = TreeGravity::row_fields, box_lo = TreeGravity::node_fields;

// Items of a 32-bit index and `values` reals of the tree's precision, packed side by side.
class Packing {
public:
    Packing(Precision precision, std::size_t values)
        : real_(precision == Precision::float32 ? sizeof(float) : sizeof(double)), values_(values) {}
    std::size_t size() const noexcept { return sizeof(std::uint32_t) + real_ * values_; }
    void append(std::vector<unsigned char>& into, std::size_t index, const double* value) const {
        const std::size_t at = into.size();
        into.resize(at + size());
        const std::uint32_t i = std::uint32_t(index);
        std::memcpy(&into[at], &i, sizeof i);
        for (std::size_t v = 0; v < values_; ++v) {
            unsigned char* to = &into[at + sizeof i + v * real_];
            if (real_ == sizeof(float)) {
                const float f = float(value[v]);
                std::memcpy(to, &f, sizeof f);
            } else {
                std::memcpy(to, &value[v], sizeof(double));
            }
        }
    }
    // Item j of `items`: its index, and its values into `value`.
    std::uint32_t unpack(const std::vector<unsigned char>& items, std::size_t j, double* value) const {
        const unsigned char* from = &items[j * size()];
        std::uint32_t i;
        std::memcpy(&i, from, sizeof i);
        for (std::size_t v = 0; v < values_; ++v) {
            if (real_ == sizeof(float)) {
                float f;
                std::memcpy(&f, from + sizeof i + v * real_, sizeof f);
                value[v] = f;
            } else {
                std::memcpy(&value[v], from + sizeof i + v * real_, sizeof(double));
            }
        }
        return i;
    }

private:
    std::size_t real_, values_;
};

} // namespace

EssentialExchange::Boxes EssentialExchange::boxes_for(std::size_t rank, const Partition& owners,
                                                       const std::vector<double>& roots, Precision precision) {
    const std::size_t count = owners.total();
    if (roots.size() != row_fields * count)
        throw UsageError("EssentialExchange: " + std::to_string(roots.size()) + " root values for the " +
                         std::to_string(count) + " nodes of the branches' level");
    Boxes out;
    out.boxes.resize(6 * count);
    out.rank.assign(count, -1);
    for (std::size_t b = 0; b < owners.parts(); ++b)
        for (std::size_t q = owners[b].begin; q < owners[b].end; ++q) {
            const double* root = roots.data() + row_fields * q;
            std::copy(root + box_lo, root + box_lo + 6, out.boxes.begin() + std::ptrdiff_t(6 * q));
            if (b != rank && root[3] > 0) out.rank[q] = int(b);
        }
    const double epsilon = precision == Precision::float32 ? double(std::numeric_limits<float>::epsilon())
                                                           : std::numeric_limits<double>::epsilon();
    out.margin = 1 + 64 * epsilon;
    return out;
}

void EssentialExchange::run(TreeGravity& tree, const Partition& owners, const std::vector<double>& roots) {
    const std::string what = "EssentialExchange: ";
    const dist::Communicator& world = *communicator_;
    const std::size_t ranks = std::size_t(world.size()), rank = std::size_t(world.rank());
    const std::size_t top = tree.branch_level(), count = std::size_t(1) << top;
    if (owners.parts() != ranks || owners.total() != count)
        throw UsageError(what + "owners of " + std::to_string(owners.total()) + " nodes for " +
                         std::to_string(owners.parts()) + " ranks; the branches' level " + std::to_string(top) +
                         " has " + std::to_string(count) + " nodes, the communicator " + std::to_string(ranks) +
                         " ranks");
    if (owners[rank].begin != tree.branch_nodes().begin || owners[rank].end != tree.branch_nodes().end)
        throw UsageError(what + "the tree holds branches other than this rank's owners");
    if (roots.size() != row_fields * count)
        throw UsageError(what + std::to_string(roots.size()) + " root values for the " + std::to_string(count) +
                         " nodes of level " + std::to_string(top));
    if (ranks == 1) {  // nothing to send or receive: the tree is whole already
        nodes_sent_ = bodies_sent_ = nodes_received_ = bodies_received_ = 0;
        bytes_received_ = 0;
        tree.import_essential({}, {}, {}, {});
        return;
    }
    const Packing node_items(tree.precision(), TreeGravity::essential_row_fields), body_items(tree.precision(), 4);
    const Boxes walked = boxes_for(rank, owners, roots, tree.precision());
    const TreeGravity::EssentialSends sends = tree.essential_sends(walked.boxes, walked.rank, walked.margin);
    nodes_.clear();
    bodies_.clear();
    for (std::size_t i = 0; i < sends.nodes.size(); ++i)
        node_items.append(nodes_, sends.nodes[i], sends.rows.data() + TreeGravity::essential_row_fields * i);
    for (std::size_t i = 0; i < sends.positions.size(); ++i)
        body_items.append(bodies_, sends.positions[i], sends.bodies.data() + 4 * i);
    nodes_sent_ = sends.nodes.size();
    bodies_sent_ = sends.positions.size();

    const dist::Distributor send_nodes(world, sends.node_to), send_bodies(world, sends.body_to);
    nodes_received_ = send_nodes.received();
    bodies_received_ = send_bodies.received();
    nodes_arrived_.resize(nodes_received_ * node_items.size());
    bodies_arrived_.resize(bodies_received_ * body_items.size());
    send_nodes.distribute(nodes_.data(), node_items.size(), nodes_arrived_.data());
    send_bodies.distribute(bodies_.data(), body_items.size(), bodies_arrived_.data());
    bytes_received_ = double(nodes_arrived_.size() + bodies_arrived_.size());

    std::vector<std::uint32_t> ids(nodes_received_), positions(bodies_received_);
    std::vector<double> rows(TreeGravity::essential_row_fields * nodes_received_), values(4 * bodies_received_);
    for (std::size_t i = 0; i < nodes_received_; ++i)
        ids[i] = node_items.unpack(nodes_arrived_, i, rows.data() + TreeGravity::essential_row_fields * i);
    for (std::size_t i = 0; i < bodies_received_; ++i)
        positions[i] = body_items.unpack(bodies_arrived_, i, values.data() + 4 * i);
    tree.import_essential(ids, rows, positions, values);
}

} // namespace partcl

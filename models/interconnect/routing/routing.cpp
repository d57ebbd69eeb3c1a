#include "models/interconnect/routing/routing.h"

namespace asim {

RoutingRegistry& routing_registry() {
    static RoutingRegistry registry("routing policy");
    return registry;
}

std::unique_ptr<Routing> make_routing(const std::string& name, const ParamValues& values) {
    return routing_registry().make(name, values);
}

}  // namespace asim

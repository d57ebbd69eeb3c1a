#include "models/common/payload.h"

#include <string>

#include "models/common/errors.h"

namespace asim {

tlm::tlm_extension_base* TransactionInfo::clone() const { return new TransactionInfo(*this); }

void TransactionInfo::copy_from(const tlm::tlm_extension_base& other) {
    *this = static_cast<const TransactionInfo&>(other);
}

bool validate_payload(tlm::tlm_generic_payload& p, uint64_t capacity_bytes) {
    const auto cmd = p.get_command();
    if (cmd != tlm::TLM_READ_COMMAND && cmd != tlm::TLM_WRITE_COMMAND) {
        p.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return false;
    }
    if (p.get_data_length() == 0 || p.get_streaming_width() < p.get_data_length()) {
        p.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
        return false;
    }
    if (p.get_byte_enable_ptr() != nullptr) {
        p.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
        return false;
    }
    const TransactionInfo* info = info_of(p);
    const bool timing_only = info != nullptr && info->timing_only;
    if (!timing_only && p.get_data_ptr() == nullptr) {
        p.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
        return false;
    }
    const uint64_t addr = p.get_address();
    if (addr >= capacity_bytes || p.get_data_length() > capacity_bytes - addr) {
        p.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return false;
    }
    return true;
}

void check_response(const tlm::tlm_generic_payload& p, const char* initiator) {
    if (p.is_response_ok()) return;
    throw SimulationError(std::string(initiator) + ": " + p.get_response_string() + " for " +
                          (p.is_read() ? "read" : "write") + " of " +
                          std::to_string(p.get_data_length()) + " B at 0x" + [&] {
                              char buf[32];
                              std::snprintf(buf, sizeof buf, "%llx",
                                            static_cast<unsigned long long>(p.get_address()));
                              return std::string(buf);
                          }());
}

// Each payload's destructor frees the TransactionInfo attached to it with set_extension.
PayloadPool::~PayloadPool() = default;

tlm::tlm_generic_payload* PayloadPool::acquire() {
    tlm::tlm_generic_payload* p;
    if (m_free.empty()) {
        m_all.push_back(std::make_unique<tlm::tlm_generic_payload>(this));
        p = m_all.back().get();
        p->set_extension(new TransactionInfo);
    } else {
        p = m_free.back();
        m_free.pop_back();
    }
    *info_of(*p) = TransactionInfo{};
    p->set_byte_enable_ptr(nullptr);
    p->set_byte_enable_length(0);
    p->set_data_ptr(nullptr);
    p->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    p->set_dmi_allowed(false);
    p->acquire();
    return p;
}

void PayloadPool::free(tlm::tlm_generic_payload* p) { m_free.push_back(p); }

}  // namespace asim

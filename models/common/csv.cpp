#include "models/common/csv.h"

namespace asim {

std::string csv_field(const std::string& text) {
    if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
    std::string q = "\"";
    for (char c : text) {
        if (c == '"') q += '"';
        q += c;
    }
    return q + "\"";
}

bool csv_record(const std::string& text, std::size_t& pos, std::vector<std::string>& fields) {
    fields.clear();
    if (pos >= text.size()) return false;
    std::string f;
    bool quoted = false;
    for (;;) {
        if (pos >= text.size()) {
            fields.push_back(std::move(f));
            return true;
        }
        const char c = text[pos++];
        if (quoted) {
            if (c != '"') {
                f += c;
            } else if (pos < text.size() && text[pos] == '"') {
                f += '"';
                ++pos;
            } else {
                quoted = false;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            fields.push_back(std::move(f));
            f.clear();
        } else if (c == '\n') {
            if (!f.empty() && f.back() == '\r') f.pop_back();
            fields.push_back(std::move(f));
            return true;
        } else {
            f += c;
        }
    }
}

}  // namespace asim

// CSV as the outputs write it and the tools that read them back parse it (RFC 4180): a field is
// quoted when it holds a comma, a quote or a line break, and a quote inside is doubled.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace asim {

// `text` as one CSV field.
std::string csv_field(const std::string& text);

// Reads the record starting at `pos` in `text` into `fields` (quoted fields may hold commas,
// quotes and line breaks; a CR before the line break is dropped) and moves `pos` past it.
// Returns false at the end of the text.
bool csv_record(const std::string& text, std::size_t& pos, std::vector<std::string>& fields);

}  // namespace asim

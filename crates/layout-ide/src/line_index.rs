//! Byte offsets to lines and columns and back. The checker speaks bytes;
//! LSP speaks UTF-16 code units by default, and the CLI prints characters.

/// A line (0-based) and a column in UTF-16 code units (0-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LineCol {
    pub line: u32,
    pub col: u32,
}

/// Where each line of a text starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineIndex {
    starts: Vec<usize>,
    len: usize,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex {
            starts,
            len: text.len(),
        }
    }

    pub fn line_count(&self) -> usize {
        self.starts.len()
    }

    /// The byte range of a line, without its line break.
    fn line_range(&self, text: &str, line: usize) -> std::ops::Range<usize> {
        let start = self.starts[line];
        let mut end = self.starts.get(line + 1).map_or(self.len, |&s| s - 1);
        if end > start && text.as_bytes().get(end - 1) == Some(&b'\r') {
            end -= 1;
        }
        start..end
    }

    fn line_of(&self, offset: usize) -> usize {
        self.starts.partition_point(|&s| s <= offset) - 1
    }

    /// A byte offset as a line and UTF-16 column. An offset inside a
    /// character counts as the character's start.
    pub fn to_utf16(&self, text: &str, offset: usize) -> LineCol {
        let offset = floor_char_boundary(text, offset.min(text.len()));
        let line = self.line_of(offset);
        let start = self.starts[line];
        let col: usize = text[start..offset].chars().map(char::len_utf16).sum();
        LineCol {
            line: line as u32,
            col: col as u32,
        }
    }

    /// A line and UTF-16 column as a byte offset. Past the end of a line
    /// means its end (LSP allows it); a column inside a surrogate pair
    /// means the character's start; past the last line means the end.
    pub fn from_utf16(&self, text: &str, at: LineCol) -> usize {
        let line = at.line as usize;
        if line >= self.starts.len() {
            return text.len();
        }
        let range = self.line_range(text, line);
        let mut units = 0usize;
        for (i, ch) in text[range.clone()].char_indices() {
            let next = units + ch.len_utf16();
            if next > at.col as usize {
                return range.start + i;
            }
            units = next;
        }
        range.end
    }

    /// 1-based line and column in characters, as the CLI prints them.
    pub fn line_col_chars(&self, text: &str, offset: usize) -> (usize, usize) {
        let offset = floor_char_boundary(text, offset.min(text.len()));
        let line = self.line_of(offset);
        let start = self.starts[line];
        (line + 1, text[start..offset].chars().count() + 1)
    }
}

fn floor_char_boundary(text: &str, mut offset: usize) -> usize {
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_columns_count_surrogate_pairs_twice() {
        // `é` is 2 bytes / 1 unit, `𝔽` is 4 bytes / 2 units.
        let text = "ab\n// é𝔽 x\r\nlast";
        let index = LineIndex::new(text);
        let x = text.find('x').unwrap();
        assert_eq!(index.to_utf16(text, x), LineCol { line: 1, col: 7 });
        assert_eq!(index.from_utf16(text, LineCol { line: 1, col: 7 }), x);
        // Inside the surrogate pair: the character's start.
        let f = text.find('𝔽').unwrap();
        assert_eq!(index.from_utf16(text, LineCol { line: 1, col: 5 }), f);
        // Past the end of a line: its end, before `\r\n`.
        assert_eq!(index.from_utf16(text, LineCol { line: 1, col: 99 }), x + 1);
        assert_eq!(
            index.from_utf16(text, LineCol { line: 9, col: 0 }),
            text.len()
        );
        assert_eq!(index.line_col_chars(text, x), (2, 7));
    }
}

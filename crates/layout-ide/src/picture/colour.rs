//! The colours of pictures: one per warp, one per bank, and a heat scale
//! for words per bank. Light enough that black text stays readable.

/// An sRGB colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    /// `#a6cee3`
    pub fn hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }

    /// From hue (degrees), saturation and lightness (0..1).
    fn hsl(h: f64, s: f64, l: f64) -> Rgb {
        let c = (1.0 - (2.0 * l - 1.0).abs()) * s;
        let hp = (h.rem_euclid(360.0)) / 60.0;
        let x = c * (1.0 - (hp % 2.0 - 1.0).abs());
        let (r, g, b) = match hp as u32 {
            0 => (c, x, 0.0),
            1 => (x, c, 0.0),
            2 => (0.0, c, x),
            3 => (0.0, x, c),
            4 => (x, 0.0, c),
            _ => (c, 0.0, x),
        };
        let m = l - c / 2.0;
        let byte = |v: f64| ((v + m) * 255.0).round().clamp(0.0, 255.0) as u8;
        Rgb(byte(r), byte(g), byte(b))
    }
}

/// Cells nothing owns, and padding.
pub const SHADED: Rgb = Rgb(0xd9, 0xd9, 0xd9);
/// A bank no lane asks in a wavefront group.
pub const IDLE: Rgb = Rgb(0xf7, 0xf7, 0xf7);
/// A bank that serves one word: no conflict.
pub const ONE_WORD: Rgb = Rgb(0xb8, 0xe1, 0x86);

/// Eight well-separated light colours for the first warps (ColorBrewer's
/// Set3), then hues a golden angle apart.
const WARPS: [Rgb; 8] = [
    Rgb(0x8d, 0xd3, 0xc7),
    Rgb(0xff, 0xff, 0xb3),
    Rgb(0xbe, 0xba, 0xda),
    Rgb(0xfb, 0x80, 0x72),
    Rgb(0x80, 0xb1, 0xd3),
    Rgb(0xfd, 0xb4, 0x62),
    Rgb(0xb3, 0xde, 0x69),
    Rgb(0xfc, 0xcd, 0xe5),
];

/// The colour of warp `w` (the same warp of every CTA).
pub fn warp(w: u64) -> Rgb {
    match WARPS.get(w as usize) {
        Some(&c) => c,
        None => Rgb::hsl(w as f64 * 137.508, 0.55, 0.78),
    }
}

/// The colour of bank `b` of `banks`: hues around the circle.
pub fn bank(b: u64, banks: u64) -> Rgb {
    Rgb::hsl(b as f64 * 360.0 / banks.max(1) as f64, 0.6, 0.8)
}

/// A bank serving `words` distinct words in one wavefront group, when the
/// busiest bank of the access serves `max`: idle, conflict-free green, then
/// from orange to red as the conflict grows.
pub fn heat(words: u64, max: u64) -> Rgb {
    match words {
        0 => IDLE,
        1 => ONE_WORD,
        _ => {
            // 2 words: orange; the worst of this access: deep red.
            let t = if max <= 2 {
                0.0
            } else {
                (words - 2) as f64 / (max - 2) as f64
            };
            let mix = |a: u8, b: u8| (a as f64 + (b as f64 - a as f64) * t).round() as u8;
            Rgb(mix(0xfd, 0xd7), mix(0xae, 0x19), mix(0x61, 0x1c))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_warps_and_banks_have_distinct_colours() {
        let warps: std::collections::HashSet<Rgb> = (0..32).map(warp).collect();
        assert_eq!(warps.len(), 32);
        let banks: std::collections::HashSet<Rgb> = (0..32).map(|b| bank(b, 32)).collect();
        assert_eq!(banks.len(), 32);
        assert_eq!(warp(0).hex(), "#8dd3c7");
    }

    #[test]
    fn heat_goes_from_green_to_red() {
        assert_eq!(heat(0, 8), IDLE);
        assert_eq!(heat(1, 8), ONE_WORD);
        assert_eq!(heat(2, 8), Rgb(0xfd, 0xae, 0x61));
        assert_eq!(heat(8, 8), Rgb(0xd7, 0x19, 0x1c));
    }
}

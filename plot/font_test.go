package plot

import "testing"

// The captions and titles print ×, superscript layer numbers in
// parentheses and the minus sign; the face must have every one (the former
// 7×13 bitmap face drew them as boxes).
func TestFaceHasCaptionCharacters(t *testing.T) {
	face, err := newFace()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range "×⁽⁾⁰¹²³⁴⁵⁶⁷⁸⁹−…AZaz09,:;()[]" {
		if _, _, ok := face.GlyphBounds(r); !ok {
			t.Errorf("no glyph for %q", r)
		}
	}
}

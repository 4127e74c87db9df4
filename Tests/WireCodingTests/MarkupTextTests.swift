import PropertyBased
import Testing
import WireCoding

@Suite struct MarkupTextTests {
    /// Pieces that make ambiguous markup when strung together: references whole and cut,
    /// stray ampersands and semicolons, quotes, non-ASCII.
    static let pieces = ["&", ";", "#", "x", "X", "41", "amp", "lt", "&amp;", "&#39;", "&#x1F600;", "<", ">", "\"", "'", "é", "a", " "]

    @Test func escapingThenUnescapingGivesTheTextBack() async {
        await propertyCheck(count: 300, input: Gen.element(of: Self.pieces).array(of: 0...24)) { parts in
            let text = parts.compactMap { $0 }.joined()
            #expect(MarkupText.unescaped(MarkupText.escaped(text)) == text)
        }
    }

    @Test func escapedTextHasNoMarkupCharacterLeft() async {
        await propertyCheck(count: 300, input: Gen.element(of: Self.pieces).array(of: 0...24)) { parts in
            let escaped = MarkupText.escaped(parts.compactMap { $0 }.joined())
            #expect(!escaped.contains("<") && !escaped.contains(">") && !escaped.contains("\"") && !escaped.contains("'"))
        }
    }

    @Test func textWithoutAnAmpersandIsUnchanged() async {
        await propertyCheck(count: 300, input: Gen.element(of: Self.pieces.filter { !$0.contains("&") }).array(of: 0...24)) { parts in
            let text = parts.compactMap { $0 }.joined()
            #expect(MarkupText.unescaped(text) == text)
        }
    }

    @Test func decodesNamedAndNumericReferences() {
        #expect(MarkupText.unescaped("a &amp; b &lt;c&gt; &quot;d&quot; &apos;e&apos;") == "a & b <c> \"d\" 'e'")
        #expect(MarkupText.unescaped("&#65;&#x42;&#X43;&#233;") == "ABCé")
        #expect(MarkupText.unescaped("&#x1F600;") == "😀")
    }

    /// Unknown names, references to no character and ampersands without a `;` close by stay as
    /// written; the `&` of one is not taken to start a reference ending much later.
    @Test func leavesWhatIsNotAReferenceAsWritten() {
        #expect(MarkupText.unescaped("&nbsp; &bogus; & alone") == "&nbsp; &bogus; & alone")
        #expect(MarkupText.unescaped("&#xD800; &#x110000; &#0; &#;") == "&#xD800; &#x110000; &#0; &#;")
        #expect(MarkupText.unescaped("&verylongname; &amp;") == "&verylongname; &")
        #expect(MarkupText.unescaped("AT&T &lt;") == "AT&T <")
    }

    @Test func escapesForElementsAndEitherQuote() {
        #expect(MarkupText.escaped("<a href=\"x\" title='y'>&</a>") == "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;")
        #expect(MarkupText.escaped("plain é") == "plain é")
    }
}

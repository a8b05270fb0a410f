/* regex.h: the regular expressions of tokenizer.json Split patterns.
 *
 * HuggingFace tokenizers compiles these with Oniguruma through the Rust
 * onig crate: Regex::new, i.e. ONIG_SYNTAX_RUBY (Oniguruma's default),
 * ONIG_OPTION_NONE, UTF-8; find_iter searches with onig_search.  This
 * engine takes the same syntax and gives the same matches (leftmost, then
 * Oniguruma's backtracking priority), without backtracking.
 *
 * Syntax (Oniguruma doc/RE, Ruby syntax):
 *   literals; escapes \t \n \r \f \v \a \e \0oo \ooo \xHH (bytes: those
 *   above 0x7f in a row must form one UTF-8 character) \x{H..} \uHHHH
 *   \o{O..} \cX; any other escaped punctuation or letter without a
 *   meaning below stands for itself
 *   .              any character but \n ((?m): any character)
 *   [...] [^...]   classes: characters, ranges, escapes, nested classes
 *                  (a union), intersection &&; ] first is literal
 *   \w \W \d \D \s \S \h \H   Unicode, as Oniguruma has them: \w is
 *                  Alphabetic, M*, Nd, Pc (and, outside classes, U+00B2
 *                  B3 B9 BC-BE, from Oniguruma's Latin-1 table); \d is
 *                  Nd; \s is White_Space; \h is [0-9a-fA-F]
 *   \p{..} \P{..} \p{^..}  general categories by short or long name (L,
 *                  Lu, LC, Letter, Uppercase_Letter, ...; case, spaces,
 *                  '-' and '_' ignored), scripts (Script, not
 *                  Script_Extensions: Han, Hani, Latin, ...), Any,
 *                  Assigned, Alphabetic, White_Space, Word
 *   | ( ) (?:..) (?<name>..) (?'name'..) (?#..)
 *   (?imx-imx) (?imx-imx:..)  i: simple case folding (CaseFolding.txt C
 *                  and S); a bracket under (?i) holds a character when it
 *                  holds one of its case, properties included, and is
 *                  negated after; \p{..} and \w-style escapes outside
 *                  brackets are not folded (both as Oniguruma); m: .
 *                  matches \n; x: extended.  An isolated (?i) runs to
 *                  the end of its group, through any | (Oniguruma's rule)
 *   * + ? {n} {n,} {,m} {n,m} ({3,1} is {1,3}), lazy with ? ({n}? is
 *                  ({n})?), possessive *+ ++ ?+ on a single-character
 *                  atom; {n,m}+ is {n,m} then +, as in Ruby; n, m <=
 *                  100000.  A loop's iteration that matches empty ends
 *                  the loop, as Oniguruma's empty check does
 *   (?=..) (?!..)  lookahead
 *   ^ $            at the start and end of a line (\n; ^ not after a
 *                  final \n), \A \z \Z start, end, end or before a final
 *                  \n, \b \B Unicode word boundary, \G the search start
 * Refused with a message naming the byte offset, as Oniguruma refuses
 * them (malformed, a quantifier on an anchor) or because this engine does
 * not have them: backreferences, lookbehind, atomic groups, possessive
 * quantifiers on groups, \K \R \X \y \Y \N \O \g \k \C- \M-, POSIX
 * brackets, other properties than the above, conditionals,
 * absent operators.
 * Known differences from Oniguruma, in no tokenizer pattern: no
 * multi-character case folding ((?i)ss does not match U+00DF, nor a
 * bracket holding U+00DF "ss"); a counted repetition ({n,m}, {n,} with
 * n > 1) of a group that can match empty repeats it as written, where
 * Oniguruma, when it compiles a counted loop rather than copies (a
 * matter of the group's compiled size), ends it at an empty iteration.
 * Searches where Oniguruma gives up (its retry limit, a backtracking
 * blow-up) are matched in full here.
 * tests/regex-onig compares the two on tokenizer patterns, on one or more
 * patterns per construct and on random patterns.
 *
 * Input is a byte string.  Ill-formed UTF-8 is read a byte at a time as
 * UNI_BAD(b) (lib/base/unicode.h): a character of no category and no class.
 * It matches ., the negated escapes (\W \D \S \H \P{..}) and negated
 * classes, nothing else.
 *
 * Time bound: a compiled program has at most RE_MAXINST instructions
 * (counted repetition is expanded; larger patterns are refused), groups
 * nest at most RE_MAXDEPTH deep and loops that can match empty at most
 * RE_MAXNULL.  re_search runs a Pike VM: threads in priority order, at
 * most one per state (an instruction, and for an instruction inside k
 * loops that can match empty, one of k + 1 loop states) and position, so
 * one search from start costs O(m * (n - start)) steps for a program of
 * m states, without backtracking on any pattern.  A lookahead's result
 * at every character boundary of the text is found at once, backwards
 * over the text (whether its body matches at a position does not depend
 * on where the search began), O(m * (n - start)) for a search; the
 * results are kept for the searches that follow on the same text (same s
 * and n, start not 0: re_next's, tokenizers' find loops), so a caller
 * that changes the bytes of s between two searches begins again at 0.
 * A lookahead holding \G depends on the start: it is scanned forward from
 * each position, O(m * w) for a body matching at most w characters.
 * re_next's repeated searches, like every leftmost-first find_iter, can
 * rescan text past a match: O(m * n^2) at worst over a whole string,
 * quadratic, never exponential.
 *
 * A struct re holds its own scratch memory: one thread at a time. */
#ifndef REGEX_H
#define REGEX_H

#include <stddef.h>

#define RE_MAXINST 100000	/* instructions in a compiled program */
#define RE_MAXDEPTH 200		/* nested groups, classes, quantifiers */
#define RE_MAXNULL 16		/* nested loops whose body can match empty */

struct re;

/* Compile pat[0..n).  0 and *out set (free with re_free), or -1 with a
 * message ("unmatched ')' at offset 4") in err[0..errsz). */
int re_compile(struct re **out, const char *pat, size_t n, char *err, size_t errsz);
void re_free(struct re *re);

/* Leftmost match in s[0..n) starting at or after start (as onig_search
 * with range n: ^, \b and lookahead see all of s).  1 with the match in
 * [*ms, *me), or 0.  A search with start > 0 may use the lookahead results
 * of the previous one when s and n are the same (see the time bound). */
int re_search(struct re *re, const char *s, size_t n, size_t start, size_t *ms, size_t *me);

/* All matches, as the onig crate's find_iter: non-overlapping, left to
 * right; an empty match is given unless it ends where the previous match
 * ended (then the search moves on by a character).  Start with a zeroed
 * struct re_iter; re_next gives 1 and a match, or 0 when there are no
 * more. */
struct re_iter {
	size_t pos;		/* where the next search starts */
	size_t last;		/* end of the previous match */
	int any;		/* a previous match exists */
};
int re_next(struct re *re, const char *s, size_t n, struct re_iter *it, size_t *ms, size_t *me);

/* VM steps (states visited, threads run) since re_compile began,
 * compiling included, for tests that check the time bound. */
unsigned long long re_steps(const struct re *re);

#endif

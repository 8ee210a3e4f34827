// Package jsonconf decodes every JSON input of mmds strictly, so that one
// file has one meaning whoever reads it: one JSON value, no trailing data, a
// size limit, and within every object
//
//   - no key twice, and no two keys that differ only in case (encoding/json
//     matches keys case-insensitively and keeps the last; most other readers
//     keep the first, so {"pass": true, "PASS": false} means two things);
//   - every key of an object decoded into a struct is exactly the name of one
//     of its fields: a key that would match a field only case-insensitively
//     ("CHANNEL" for `json:"channel"`) is refused, as is an unknown one.
//
// Errors read as one line that names the key or field and quotes at most
// safefile.MaxExcerpt characters of the file (safefile.Excerpt).
//
// Types with their own UnmarshalJSON are opaque to the field check of the
// enclosing value (duplicate and case-equal keys are still refused
// throughout the document); their methods decode through Unmarshal, which
// applies the same checks to their part of the file.
//
// Matrix is the one JSON form the package defines: a cell kernel's table
// of label probabilities, dense or, when shorter, per row its nonzero
// entries, read in either form as strictly as the rest.
package jsonconf

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mmds-project/mmds/internal/safefile"
)

// MaxBytes bounds a configuration file read by Decode: anything larger is
// not a config.
const MaxBytes = 16 << 20

// MaxDepth bounds the nesting of arrays and objects: the checks recurse once
// per level, and no input of mmds nests deeper than a handful.
const MaxDepth = 256

// Decode reads one JSON value of at most MaxBytes bytes from r and decodes
// it into v strictly (Unmarshal).
func Decode(r io.Reader, v any) error {
	data, err := io.ReadAll(io.LimitReader(r, MaxBytes+1))
	if err != nil {
		return fmt.Errorf("read: %w", err)
	}
	if len(data) > MaxBytes {
		return fmt.Errorf("file larger than %d bytes", MaxBytes)
	}
	return Unmarshal(data, v)
}

// Unmarshal decodes data, one JSON value and nothing after it, into v after
// the checks of the package doc; v is a non-nil pointer.
func Unmarshal(data []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		panic("jsonconf: Unmarshal needs a non-nil pointer")
	}
	if err := textError(data); err != nil {
		return err
	}
	if _, err := walk(data, rv.Type()); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var je *Error
		if errors.As(err, &je) {
			return je // a custom unmarshaler's, through Unmarshal
		}
		return &Error{msg: message(err)}
	}
	return nil
}

// textError is the error of data that is not JSON text: an encoding
// (Encoding) or a syntax error (syntaxMessage); nil for JSON.
func textError(data []byte) error {
	if msg := Encoding(data); msg != "" {
		// Named, not decoded: encoding/json would call a byte order mark
		// "invalid character 'ï'" and UTF-16 "invalid character 'ÿ'", and
		// accepting a mark would give one file two spellings that hash
		// differently.
		return &Error{msg: msg}
	}
	if !json.Valid(data) {
		var v0 any
		var se *json.SyntaxError
		if err := json.Unmarshal(data, &v0); errors.As(err, &se) && len(bytes.TrimSpace(data)) > 0 {
			return &Error{msg: syntaxMessage(data, se)}
		}
	}
	return nil
}

// Encoding says, in one phrase, why data is not UTF-8 text that JSON (or
// CSV) can be: a byte order mark, UTF-16 or UTF-32 (as Windows editors and
// PowerShell write), binary data; "" for text. The phrase names the bytes
// and the fix.
func Encoding(data []byte) string {
	for _, m := range []struct {
		mark []byte
		name string
	}{
		{[]byte{0xFF, 0xFE, 0, 0}, "UTF-32 (little-endian) text"},
		{[]byte{0, 0, 0xFE, 0xFF}, "UTF-32 (big-endian) text"},
		{[]byte{0xEF, 0xBB, 0xBF}, ""},
		{[]byte{0xFF, 0xFE}, "UTF-16 (little-endian) text"},
		{[]byte{0xFE, 0xFF}, "UTF-16 (big-endian) text"},
	} {
		if !bytes.HasPrefix(data, m.mark) {
			continue
		}
		if m.name == "" {
			return "starts with a UTF-8 byte order mark (bytes EF BB BF): save the file as UTF-8 without one"
		}
		return fmt.Sprintf("is %s (its byte order mark is % X): save it as UTF-8", m.name, m.mark)
	}
	head := data[:min(len(data), 64)]
	if i := bytes.IndexByte(head, 0); i >= 0 {
		if len(head) >= 2 && (head[0] == 0) != (head[1] == 0) && bytes.Count(head, []byte{0}) >= len(head)/2-1 {
			return "looks like UTF-16 text without a byte order mark (every other byte is 0): save it as UTF-8"
		}
		return fmt.Sprintf("is binary data, not text (byte %d is 0)", i)
	}
	return ""
}

// syntaxMessage names where data stops being JSON, by line and column,
// and what is there, in words rather than encoding/json's: the usual
// causes of an exported file's syntax error (NaN, Infinity, data after
// the value, a file cut short) are said as such.
func syntaxMessage(data []byte, se *json.SyntaxError) string {
	off := int(min(max(se.Offset-1, 0), int64(len(data))))
	if strings.Contains(se.Error(), "unexpected end of JSON input") {
		return "malformed JSON: unexpected end of file"
	}
	if off > 0 && data[off-1] == '-' && off < len(data) && data[off] > '9' {
		off-- // the sign of -Infinity belongs to the token shown
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := 1 + utf8.RuneCount(data[bytes.LastIndexByte(data[:off], '\n')+1:off])
	at := fmt.Sprintf("malformed JSON at line %d, column %d (byte %d)", line, col, off+1)
	rest := data[off:]
	tok := rest[:min(len(rest), 12)]
	if i := bytes.IndexAny(tok, " \t\r\n,]}:"); i > 0 {
		tok = tok[:i]
	}
	switch {
	case strings.Contains(se.Error(), "after top-level value"):
		return at + ": unexpected data after the JSON value"
	case nonFiniteToken(rest):
		return fmt.Sprintf("%s: %s: NaN and Infinity are not JSON: every number must be finite", at, safefile.Excerpt(string(tok)))
	}
	return fmt.Sprintf("%s: unexpected %s", at, safefile.Excerpt(string(tok)))
}

// nonFiniteToken reports whether b starts with NaN or an infinity as
// Python's json module and JavaScript write them.
func nonFiniteToken(b []byte) bool {
	b = bytes.TrimPrefix(b, []byte("-"))
	return slices.ContainsFunc([]string{"NaN", "Infinity", "nan", "inf", "Inf"}, func(t string) bool { return bytes.HasPrefix(b, []byte(t)) })
}

// Size is what decoding a document allocates at most: its numbers (each a
// float64 once decoded) and its arrays (each a slice header), a compact
// table's dense entries and rows included.
type Size struct {
	Numbers, Arrays int64
}

// Bytes is the memory s takes decoded: 8 bytes a number, 24 an array.
func (s Size) Bytes() int64 { return 8*s.Numbers + 24*s.Arrays }

// Measure returns the Size of data, with the checks of the package doc
// that do not need a type, reading it token by token and allocating no
// table: a reader that budgets its memory in bytes measures a file before
// it decodes it.
func Measure(data []byte) (Size, error) {
	if err := textError(data); err != nil {
		return Size{}, err
	}
	return walk(data, nil)
}

// Error is the error of Decode and Unmarshal: one line, safe to print. It
// wraps the error of a type's UnmarshalText (an enum's sentinel), if any.
type Error struct {
	msg string
	err error
}

func (e *Error) Error() string { return e.msg }

// Unwrap returns the error of the UnmarshalText that refused a field's
// text, or nil.
func (e *Error) Unwrap() error { return e.err }

func errorf(format string, args ...any) error { return &Error{msg: fmt.Sprintf(format, args...)} }

// Errorf returns an Error for a type's UnmarshalJSON to report a value it
// refuses: Unmarshal passes it on as written, where any other error of an
// unmarshaler would read as malformed JSON.
func Errorf(format string, args ...any) error { return errorf(format, args...) }

// walk checks the tokens of data against type t (nil: no type) and
// returns their Size.
func walk(data []byte, t reflect.Type) (Size, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // numbers are the decoder's to judge, with the field's name
	c := checker{dec: dec, fields: map[reflect.Type]structInfo{}}
	tok, err := dec.Token()
	if err != nil {
		return Size{}, &Error{msg: message(err)}
	}
	if err := c.value(tok, t, ""); err != nil {
		return Size{}, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return Size{}, &Error{msg: "unexpected data after the JSON value"}
	}
	return Size{Numbers: c.numbers + c.entries, Arrays: c.arrays}, nil
}

type checker struct {
	dec    *json.Decoder
	depth  int
	fields map[reflect.Type]structInfo // structFields, once per type
	// closed is the length of the array closed last; entries sums
	// labels × rows over the objects that have both, wherever they are
	// (the compact Matrix form, maxDocumentEntries).
	closed  int
	entries int64
	numbers int64 // number tokens seen
	arrays  int64 // arrays seen, and the rows of compact tables
}

// maxDocumentEntries bounds the dense size, in entries, of every compact
// table ({"labels": m, "rows": […]}, Matrix) in one document together: 2²⁷,
// what the largest file mmds reads (256 MiB) can hold densely. Each table
// is capped on its own (MaxMatrixEntries), but a small compact table
// expands to m entries per row, so without a bound on the whole document a
// file of many of them could cost far more memory than its size.
const maxDocumentEntries = 1 << 27

type structInfo struct {
	fields map[string]reflect.Type
	names  []string
}

var unmarshaler = reflect.TypeFor[json.Unmarshaler]()

// shape returns the type whose field names constrain a value decoded into
// t, or nil when nothing does (any, a custom unmarshaler).
func shape(t reflect.Type) reflect.Type {
	for t != nil {
		if t.Implements(unmarshaler) || reflect.PointerTo(t).Implements(unmarshaler) {
			return nil
		}
		switch t.Kind() {
		case reflect.Pointer:
			t = t.Elem()
		case reflect.Interface:
			return nil
		default:
			return t
		}
	}
	return nil
}

// value checks the value that begins with tok, to be decoded into t.
func (c *checker) value(tok json.Token, t reflect.Type, path string) error {
	d, ok := tok.(json.Delim)
	if !ok {
		if _, num := tok.(json.Number); num {
			c.numbers++
		}
		return text(tok, t, path) // other scalars: the decoder checks their type
	}
	if c.depth++; c.depth > MaxDepth {
		return errorf("%s: nested deeper than %d levels", named(path, "the JSON value", ""), MaxDepth)
	}
	defer func() { c.depth-- }()
	t = shape(t)
	if d == '[' {
		c.arrays++
		return c.array(t, path)
	}
	return c.object(t, path)
}

// array checks the elements of an array to be decoded into t (a slice or
// an array, or nil) and records their number in c.closed.
func (c *checker) array(t reflect.Type, path string) error {
	var elem reflect.Type
	if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
		elem = t.Elem()
	}
	n := 0
	for ; c.dec.More(); n++ {
		if err := c.next(elem, fmt.Sprintf("%s[%d]", path, n)); err != nil {
			return err
		}
	}
	c.closed = n
	return c.end()
}

// object checks the members of an object to be decoded into t (a struct,
// a map, or nil): every key once, in one case, a field of the struct; and
// counts a compact table's entries (maxDocumentEntries).
func (c *checker) object(t reflect.Type, path string) error {
	var (
		fields map[string]reflect.Type
		names  []string
		elem   reflect.Type
	)
	isStruct := t != nil && t.Kind() == reflect.Struct
	if isStruct {
		si, ok := c.fields[t]
		if !ok {
			si.fields, si.names = structFields(t)
			c.fields[t] = si
		}
		fields, names = si.fields, si.names
	} else if t != nil && t.Kind() == reflect.Map {
		elem = t.Elem()
	}
	seen := map[string]string{} // fold(key) → key
	var labels, rows int64 = -1, -1
	for c.dec.More() {
		key, err := c.key(seen, path)
		if err != nil {
			return err
		}
		ft := elem
		if isStruct {
			var ok bool
			if ft, ok = fields[key]; !ok {
				return unknownField(key, names, path)
			}
		}
		tok, err := c.token()
		if err != nil {
			return err
		}
		if n, ok := tok.(json.Number); ok && key == "labels" {
			if v, err := n.Int64(); err == nil && v > 0 {
				labels = v
			}
		}
		if err := c.value(tok, ft, join(path, key)); err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok && d == '[' && key == "rows" {
			rows = int64(c.closed)
		}
	}
	if labels > 0 && rows > 0 {
		c.arrays += rows // each dense row is a slice of its own
		if c.entries += min(labels, maxDocumentEntries) * min(rows, maxDocumentEntries); c.entries > maxDocumentEntries {
			return errorf("%s: compact tables of more than %d entries in all (each {\"labels\", \"rows\"} is labels × rows entries once read): larger than any file mmds reads could hold densely", named(path, "the JSON value", ""), maxDocumentEntries)
		}
	}
	return c.end()
}

// token reads the next token within a value.
func (c *checker) token() (json.Token, error) {
	tok, err := c.dec.Token()
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return nil, &Error{msg: message(err)}
	}
	return tok, nil
}

// key reads an object's next key and refuses one it has already had, in
// any case.
func (c *checker) key(seen map[string]string, path string) (string, error) {
	tok, err := c.token()
	if err != nil {
		return "", err
	}
	key := tok.(string) // the decoder allows only strings here
	if prev, ok := seen[fold(key)]; ok {
		if prev == key {
			return "", errorf("key %s appears twice in %s", safefile.Excerpt(key), named(path, "the top-level object", "object "))
		}
		return "", errorf("keys %s and %s in %s differ only in case: one file, one meaning", safefile.Excerpt(prev), safefile.Excerpt(key), named(path, "the top-level object", "object "))
	}
	seen[fold(key)] = key
	return key, nil
}

// unknownField is the error for a key that names no field of a struct.
func unknownField(key string, names []string, path string) error {
	for _, n := range names {
		if strings.EqualFold(n, key) {
			return errorf("key %s%s differs from the field %q only in case: write %q", safefile.Excerpt(key), named(path, "", " in "), n, n)
		}
	}
	return errorf("unknown field %s%s (allowed: %s)", safefile.Excerpt(key), named(path, "", " in "), strings.Join(names, ", "))
}

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

// text checks a string to be decoded into t through t's UnmarshalText (an
// enum's name), so that a refused name is reported with its field; the
// error wraps UnmarshalText's.
func text(tok json.Token, t reflect.Type, path string) error {
	s, ok := tok.(string)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if !ok || t == nil || shape(t) == nil || !reflect.PointerTo(t).Implements(textUnmarshaler) {
		return nil
	}
	if err := reflect.New(t).Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s)); err != nil {
		return &Error{msg: fmt.Sprintf("%s: %s", named(path, "the JSON value", "field "), safefile.Cut(err.Error(), 4*safefile.MaxExcerpt)), err: err}
	}
	return nil
}

// end reads the closing delimiter of an array or object.
func (c *checker) end() error {
	_, err := c.token()
	return err
}

// next checks the next value, to be decoded into t.
func (c *checker) next(t reflect.Type, path string) error {
	tok, err := c.token()
	if err != nil {
		return err
	}
	return c.value(tok, t, path)
}

// fold maps s to a representative of its case-folding class: two strings
// have the same fold exactly when strings.EqualFold holds, which is when
// encoding/json would match one to the other.
func fold(s string) string {
	var b strings.Builder
	for _, r := range s {
		m := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			m = min(m, f)
		}
		b.WriteRune(m)
	}
	return b.String()
}

// structFields returns the JSON names of t's fields with their types, and
// the names in declaration order, with encoding/json's rules: embedded
// structs without a name promote their fields, a shallower field hides a
// deeper one, and of two at one depth a tagged one wins (none if both or
// neither are tagged).
func structFields(t reflect.Type) (map[string]reflect.Type, []string) {
	type field struct {
		name   string
		typ    reflect.Type
		depth  int
		tagged bool
	}
	var all []field
	var walk func(t reflect.Type, depth int, visited map[reflect.Type]bool)
	walk = func(t reflect.Type, depth int, visited map[reflect.Type]bool) {
		if visited[t] {
			return
		}
		visited[t] = true
		for i := range t.NumField() {
			sf := t.Field(i)
			tag := sf.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			if sf.Anonymous && name == "" {
				et := sf.Type
				if et.Kind() == reflect.Pointer {
					et = et.Elem()
				}
				if et.Kind() == reflect.Struct {
					walk(et, depth+1, visited)
					continue
				}
			}
			if !sf.IsExported() {
				continue
			}
			tagged := name != ""
			if !tagged {
				name = sf.Name
			}
			all = append(all, field{name, sf.Type, depth, tagged})
		}
	}
	walk(t, 0, map[reflect.Type]bool{})
	byName := map[string][]field{}
	var order []string
	for _, f := range all {
		if byName[f.name] == nil {
			order = append(order, f.name)
		}
		byName[f.name] = append(byName[f.name], f)
	}
	fields := map[string]reflect.Type{}
	var names []string
	for _, n := range order {
		fs := byName[n]
		best, count := fs[0], 0
		for _, f := range fs {
			if f.depth < best.depth || (f.depth == best.depth && f.tagged && !best.tagged) {
				best = f
			}
		}
		for _, f := range fs {
			if f.depth == best.depth && f.tagged == best.tagged {
				count++
			}
		}
		if count == 1 {
			fields[n] = best.typ
			names = append(names, n)
		}
	}
	return fields, names
}

// join appends a key to a path for messages, cutting a long key.
func join(path, key string) string {
	if utf8.RuneCountInString(key) > safefile.MaxExcerpt {
		key = strings.TrimSuffix(strings.TrimPrefix(safefile.Excerpt(key), `"`), `"…`) + "…"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

// named names the value at path for a message: prefix and the path
// quoted, or top for the whole document (path "").
func named(path, top, prefix string) string {
	if path == "" {
		return top
	}
	return prefix + strconv.Quote(cut(path))
}

// message turns encoding/json errors into one-line messages that name the
// field and quote no more of the file than a short excerpt.
func message(err error) string {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	var je *Error
	switch {
	case errors.As(err, &je):
		return je.msg // a custom unmarshaler's, through Unmarshal
	case errors.As(err, &te):
		if te.Field == "" {
			return fmt.Sprintf("the file holds a JSON %s: want %s", cut(te.Value), typeWords(te.Type))
		}
		return fmt.Sprintf("field %q: cannot use JSON %s as %s (at byte %d)", te.Field, cut(te.Value), typeWords(te.Type), te.Offset)
	case errors.As(err, &se):
		return fmt.Sprintf("malformed JSON at byte %d", se.Offset) // Unmarshal says more, from the data
	case errors.Is(err, io.EOF):
		return "empty file: want a JSON object"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "malformed JSON: unexpected end of file"
	}
	if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return "unknown field " + cut(f)
	}
	return "malformed JSON: " + cut(err.Error())
}

// typeWords names what a Go type holds in JSON's words, for messages that
// must not name Go types ("float64", "mip.BinaryConfig").
func typeWords(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(textUnmarshaler) {
		return "a string" // an enum's name, whatever its Go kind
	}
	switch t.Kind() {
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "a whole number"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number ≥ 0"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "a list of " + pluralWords(typeWords(t.Elem()))
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "a value of another type"
}

// pluralWords turns typeWords' "a number" into "numbers", "a list of
// numbers" into "lists of numbers".
func pluralWords(w string) string {
	w = strings.TrimPrefix(strings.TrimPrefix(w, "a "), "an ")
	switch {
	case w == "true or false":
		return "true/false values"
	case strings.HasPrefix(w, "list of "):
		return "lists of " + strings.TrimPrefix(w, "list of ")
	case strings.HasPrefix(w, "whole number"):
		return "whole numbers" + strings.TrimPrefix(w, "whole number")
	case w == "value of another type":
		return "values of another type"
	}
	return w + "s"
}

// cut shortens text that may hold a piece of the file (a number's digits, a
// custom unmarshaler's message) to a bounded length.
func cut(s string) string { return safefile.Cut(s, 2*safefile.MaxExcerpt) }

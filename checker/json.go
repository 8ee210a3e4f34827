package main

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
)

// A strict JSON reader. mmds refuses, in every JSON file it reads, a key
// given twice, two keys of one object equal up to case, keys it does not
// know, trailing data and a byte order mark; the checker refuses the same,
// so that a file means one thing to both. Values are decoded into
// map[string]any, []any, json.Number, string, bool and nil, and read
// through object, which remembers the keys used and refuses the rest.

// parseJSON decodes one JSON value and nothing after it.
func parseJSON(b []byte) any {
	rejectIf(bytes.HasPrefix(b, []byte{0xEF, 0xBB, 0xBF}), "starts with a byte order mark")
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	v := decodeValue(dec, 0)
	if _, err := dec.Token(); err != io.EOF {
		reject("not one JSON value: data after it")
	}
	return v
}

func decodeValue(dec *json.Decoder, depth int) any {
	rejectIf(depth > 64, "JSON nested deeper than 64 levels")
	tok, err := dec.Token()
	rejectIf(err != nil, "not JSON: %v", err)
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			list := []any{}
			for dec.More() {
				list = append(list, decodeValue(dec, depth+1))
			}
			dec.Token() // ]
			return list
		}
		if t == '{' {
			m := map[string]any{}
			folded := map[string]string{}
			for dec.More() {
				k, err := dec.Token()
				key, ok := k.(string)
				rejectIf(err != nil || !ok, "not JSON: %v", err)
				fold := strings.ToLower(strings.ToUpper(key)) // the case folding encoding/json matches keys by
				if prev, ok := folded[fold]; ok {
					reject("key %s given twice (or as %s): one file, one meaning", quote(key), quote(prev))
				}
				folded[fold] = key
				m[key] = decodeValue(dec, depth+1)
			}
			dec.Token() // }
			return m
		}
	}
	return tok
}

// object is a JSON object being read: path names it in messages.
type object struct {
	path string
	m    map[string]any
	used map[string]bool
}

func asObject(path string, v any) *object {
	m, ok := v.(map[string]any)
	rejectIf(!ok, "%s: want a JSON object", where(path))
	return &object{path: path, m: m, used: map[string]bool{}}
}

func where(path string) string {
	if path == "" {
		return "the file"
	}
	return path
}

func (o *object) key(k string) string {
	if o.path == "" {
		return k
	}
	return o.path + "." + k
}

// has reports whether key is present (and not null).
func (o *object) has(k string) bool { v, ok := o.m[k]; return ok && v != nil }

// get returns the value of key, refusing a missing one.
func (o *object) get(k string) any {
	o.used[k] = true
	v, ok := o.m[k]
	rejectIf(!ok || v == nil, "%s is missing", o.key(k))
	return v
}

// done refuses the keys nothing read: a key the checker does not know is
// a claim it cannot check.
func (o *object) done() {
	var extra []string
	for k := range o.m {
		if !o.used[k] {
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		reject("%s: unknown key %s (this checker reads %s)", where(o.path), quote(extra[0]), witnessFormat)
	}
}

func (o *object) obj(k string) *object { return asObject(o.key(k), o.get(k)) }

// typed returns the value of key as a T, refusing a value of another type.
func typed[T any](o *object, k, want string) T {
	v, ok := o.get(k).(T)
	rejectIf(!ok, "%s: want %s", o.key(k), want)
	return v
}

func (o *object) str(k string) string   { return typed[string](o, k, "a string") }
func (o *object) boolean(k string) bool { return typed[bool](o, k, "true or false") }
func (o *object) list(k string) []any   { return typed[[]any](o, k, "a list") }

// num reads a number as the float64 it denotes (as mmds reads it).
func (o *object) num(k string) float64 { return number(o.key(k), o.get(k)) }

// rat reads a number as the exact rational value of that float64.
func (o *object) rat(k string) *big.Rat { return exact(o.num(k)) }

func number(path string, v any) float64 {
	n, ok := v.(json.Number)
	rejectIf(!ok, "%s: want a number", path)
	f, err := strconv.ParseFloat(string(n), 64)
	rejectIf(err != nil || math.IsInf(f, 0), "%s: %s is not a finite float64", path, quote(string(n)))
	return f
}

// listOf reads a list, each entry by read.
func listOf[T any](path string, v any, want string, read func(string, any) T) []T {
	l, ok := v.([]any)
	rejectIf(!ok, "%s: want a list of %s", path, want)
	out := make([]T, len(l))
	for i, x := range l {
		out[i] = read(path+"["+strconv.Itoa(i)+"]", x)
	}
	return out
}

// text reads a string.
func text(path string, v any) string {
	s, ok := v.(string)
	rejectIf(!ok, "%s: want a string", path)
	return s
}

// numbers reads a list of numbers; matrix a list of lists of them.
func numbers(path string, v any) []float64  { return listOf(path, v, "numbers", number) }
func matrix(path string, v any) [][]float64 { return listOf(path, v, "rows", numbers) }

// quote quotes at most 40 characters of a file's text for a message, so
// that no message discloses more of a file than the offending token's head.
func quote(s string) string {
	r := []rune(s)
	if len(r) > 40 {
		return strconv.Quote(string(r[:40])) + "…"
	}
	return strconv.Quote(s)
}

// printable is a path as messages show it: control characters escaped.
func printable(s string) string {
	q := strconv.Quote(s)
	if q[1:len(q)-1] == s {
		return s
	}
	return q
}

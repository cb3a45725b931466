// Package report writes a benchmark's results: a markdown table (printed
// and saved as report.md), the measurements as report.json, and
// report.html, a self-contained page with the table and charts drawn
// here as inline SVG (no scripts, no style sheets, nothing fetched).
package report

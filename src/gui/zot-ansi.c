/* zot-ansi.c — ANSI SGR escapes to Pango attributes
 *
 * One pass over the bytes of a line. Text goes to the output; an SGR
 * sequence (ESC [ params m) changes the current style; every other escape
 * (another CSI, OSC, DCS and friends, a two-byte escape, a stray ESC) is
 * dropped whole. A sequence cut off by the end of the line is dropped too.
 * Each run of text with one style becomes a set of attributes, with byte
 * offsets into the returned text. Invalid UTF-8 becomes U+FFFD, so that
 * the result is always valid UTF-8; control characters other than tab and
 * newline are dropped, since a label would show them as boxes.
 */
#define G_LOG_DOMAIN "zot-ansi"

#include "config.h"

#include <string.h>

#include "zot-ansi.h"

#define ESC 0x1b
#define BEL 0x07

/* Parameters are read in windows of this many, so that a hostile line
 * costs linear time and constant memory, whatever its length. */
#define MAX_PARAMS 64
/* The longest code: 38:2:colorspace:r:g:b */
#define LONGEST_CODE 6
/* Larger values are clamped; they mean nothing to SGR anyway. */
#define MAX_PARAM_VALUE 65535

#define DEFAULT_FOREGROUND 0x241f31
#define DEFAULT_BACKGROUND 0xf6f5f4
#define DIM_ALPHA 0x9000

#define REPLACEMENT_CHARACTER "\xef\xbf\xbd"

typedef struct
{
  guint   bold : 1;
  guint   dim : 1;
  guint   italic : 1;
  guint   underline : 1;
  guint   reverse : 1;
  guint   strike : 1;
  guint   fg_set : 1;
  guint   bg_set : 1;
  guint32 fg;
  guint32 bg;
} Style;

typedef struct
{
  guint    value;
  gboolean sub;    /* separated from the previous one by ':' */
} Param;

typedef struct
{
  GString       *out;
  PangoAttrList *attrs;
  Style          style;
  gsize          run_start;
  guint32        default_fg;
  guint32        default_bg;
} Converter;

/* GNOME Console's palette: normal 0–7, bright 8–15. */
static const guint32 palette[16] = {
  0x241f31, 0xc01c28, 0x2ec27e, 0xf5c211, 0x1e78e4, 0x9841bb, 0x0ab9dc, 0xc0bfbc,
  0x5e5c64, 0xed333b, 0x57e389, 0xf8e45c, 0x51a1ff, 0xc061cb, 0x4fd2fd, 0xf6f5f4,
};

static guint32
color_256 (guint n)
{
  static const guint8 levels[6] = { 0, 95, 135, 175, 215, 255 };

  g_assert (n < 256);

  if (n < 16)
    return palette[n];

  if (n < 232)
    {
      guint i = n - 16;
      return ((guint32) levels[i / 36] << 16) |
             ((guint32) levels[(i / 6) % 6] << 8) |
             levels[i % 6];
    }

  {
    guint32 grey = 8 + 10 * (n - 232);
    return (grey << 16) | (grey << 8) | grey;
  }
}

static guint32
rgb (guint r,
     guint g,
     guint b)
{
  return ((guint32) MIN (r, 255) << 16) | ((guint32) MIN (g, 255) << 8) | MIN (b, 255);
}

static gboolean
style_is_plain (const Style *style)
{
  return !style->bold && !style->dim && !style->italic && !style->underline &&
         !style->reverse && !style->strike && !style->fg_set && !style->bg_set;
}

static gboolean
style_equal (const Style *a,
             const Style *b)
{
  return a->bold == b->bold && a->dim == b->dim && a->italic == b->italic &&
         a->underline == b->underline && a->reverse == b->reverse && a->strike == b->strike &&
         a->fg_set == b->fg_set && a->bg_set == b->bg_set &&
         (!a->fg_set || a->fg == b->fg) && (!a->bg_set || a->bg == b->bg);
}

static void
insert_attr (Converter      *conv,
             PangoAttribute *attr,
             gsize           end)
{
  attr->start_index = conv->run_start;
  attr->end_index = end;
  pango_attr_list_insert (conv->attrs, attr);
}

static PangoAttribute *
color_attr (PangoAttribute *(*ctor) (guint16, guint16, guint16),
            guint32          color)
{
  return ctor (((color >> 16) & 0xff) * 257, ((color >> 8) & 0xff) * 257, (color & 0xff) * 257);
}

/* Ends the current run: its text gets the attributes of the current style. */
static void
flush_run (Converter *conv)
{
  const Style *s = &conv->style;
  gsize end = conv->out->len;
  gboolean fg_set = s->fg_set;
  gboolean bg_set = s->bg_set;
  guint32 fg = s->fg;
  guint32 bg = s->bg;

  if (end > conv->run_start && !style_is_plain (s))
    {
      if (s->reverse)
        {
          fg = s->bg_set ? s->bg : conv->default_bg;
          bg = s->fg_set ? s->fg : conv->default_fg;
          fg_set = bg_set = TRUE;
        }

      if (fg_set)
        insert_attr (conv, color_attr (pango_attr_foreground_new, fg), end);
      if (bg_set)
        insert_attr (conv, color_attr (pango_attr_background_new, bg), end);
      if (s->bold)
        insert_attr (conv, pango_attr_weight_new (PANGO_WEIGHT_BOLD), end);
      if (s->dim)
        insert_attr (conv, pango_attr_foreground_alpha_new (DIM_ALPHA), end);
      if (s->italic)
        insert_attr (conv, pango_attr_style_new (PANGO_STYLE_ITALIC), end);
      if (s->underline)
        insert_attr (conv, pango_attr_underline_new (PANGO_UNDERLINE_SINGLE), end);
      if (s->strike)
        insert_attr (conv, pango_attr_strikethrough_new (TRUE), end);
    }

  conv->run_start = end;
}

/* Reads an extended colour (38/48/58) at params[*i]; advances *i past it.
 * Returns FALSE when the colour is malformed or out of range. */
static gboolean
read_extended_color (const Param *params,
                     guint        n_params,
                     guint       *i,
                     guint32     *color)
{
  guint start = *i;
  guint group_end = start + 1;

  while (group_end < n_params && params[group_end].sub)
    group_end++;

  if (group_end > start + 1)
    {
      /* Colon form: 38:5:n, 38:2:r:g:b or 38:2:colorspace:r:g:b */
      guint len = group_end - start;

      *i = group_end;
      if (len >= 3 && params[start + 1].value == 5)
        {
          if (params[start + 2].value > 255)
            return FALSE;
          *color = color_256 (params[start + 2].value);
          return TRUE;
        }
      if (len >= 5 && params[start + 1].value == 2)
        {
          guint off = len >= 6 ? 3 : 2;

          *color = rgb (params[start + off].value, params[start + off + 1].value,
                        params[start + off + 2].value);
          return TRUE;
        }
      return FALSE;
    }

  /* Semicolon form: 38;5;n or 38;2;r;g;b */
  if (start + 2 < n_params && params[start + 1].value == 5)
    {
      *i = start + 3;
      if (params[start + 2].value > 255)
        return FALSE;
      *color = color_256 (params[start + 2].value);
      return TRUE;
    }
  if (start + 4 < n_params && params[start + 1].value == 2)
    {
      *i = start + 5;
      *color = rgb (params[start + 2].value, params[start + 3].value, params[start + 4].value);
      return TRUE;
    }

  /* Nothing says how much of the rest belongs to it: ignore the rest. */
  *i = n_params;
  return FALSE;
}

/* Applies the codes in @params to @style. When @last is FALSE more
 * parameters follow: it stops where a code might continue past the end,
 * and returns how many parameters it used. */
static guint
apply_sgr (Style       *style,
           const Param *params,
           guint        n_params,
           gboolean     last)
{
  static const Param reset = { 0, FALSE };
  guint i = 0;

  /* ESC [ m is ESC [ 0 m */
  if (n_params == 0 && last)
    {
      params = &reset;
      n_params = 1;
    }

  while (i < n_params && (last || n_params - i >= LONGEST_CODE))
    {
      guint p = params[i].value;
      guint next = i + 1;
      guint32 color = 0;

      if (p == 38 || p == 48 || p == 58)
        {
          if (read_extended_color (params, n_params, &i, &color))
            {
              if (p == 38)
                {
                  style->fg = color;
                  style->fg_set = TRUE;
                }
              else if (p == 48)
                {
                  style->bg = color;
                  style->bg_set = TRUE;
                }
              /* 58, the underline colour, has no Pango attribute we use. */
            }
          continue;
        }

      /* Skip sub-parameters of other codes, reading only 4:n. */
      while (next < n_params && params[next].sub)
        next++;

      switch (p)
        {
        case 0:
          memset (style, 0, sizeof *style);
          break;
        case 1: style->bold = TRUE; break;
        case 2: style->dim = TRUE; break;
        case 3: style->italic = TRUE; break;
        case 4:
          style->underline = next > i + 1 ? params[i + 1].value != 0 : TRUE;
          break;
        case 7: style->reverse = TRUE; break;
        case 9: style->strike = TRUE; break;
        case 21: style->underline = TRUE; break;  /* double underline */
        case 22: style->bold = style->dim = FALSE; break;
        case 23: style->italic = FALSE; break;
        case 24: style->underline = FALSE; break;
        case 27: style->reverse = FALSE; break;
        case 29: style->strike = FALSE; break;
        case 39: style->fg_set = FALSE; break;
        case 49: style->bg_set = FALSE; break;
        default:
          if (p >= 30 && p <= 37)
            {
              style->fg = palette[p - 30];
              style->fg_set = TRUE;
            }
          else if (p >= 90 && p <= 97)
            {
              style->fg = palette[p - 90 + 8];
              style->fg_set = TRUE;
            }
          else if (p >= 40 && p <= 47)
            {
              style->bg = palette[p - 40];
              style->bg_set = TRUE;
            }
          else if (p >= 100 && p <= 107)
            {
              style->bg = palette[p - 100 + 8];
              style->bg_set = TRUE;
            }
          /* Blink, conceal, fonts and the like: ignored. */
          break;
        }

      i = next;
    }

  return MIN (i, n_params);
}

/* Adds a parameter; a full window is applied to @pending first. */
static void
push_param (Style    *pending,
            Param    *params,
            guint    *n_params,
            Param     param)
{
  if (*n_params == MAX_PARAMS)
    {
      guint used = apply_sgr (pending, params, *n_params, FALSE);

      memmove (params, params + used, (*n_params - used) * sizeof *params);
      *n_params -= used;
    }
  params[(*n_params)++] = param;
}

/* @p points just after "ESC [". Returns where the text resumes. */
static const char *
parse_csi (Converter  *conv,
           const char *p,
           const char *end)
{
  Param params[MAX_PARAMS];
  Style pending = conv->style;
  guint n_params = 0;
  guint value = 0;
  gboolean have_value = FALSE;
  gboolean next_sub = FALSE;
  gboolean private = FALSE;
  gboolean intermediates = FALSE;

  for (; p < end; p++)
    {
      guchar c = (guchar) *p;

      if (c >= '0' && c <= '9')
        {
          value = MIN (value * 10 + (c - '0'), MAX_PARAM_VALUE);
          have_value = TRUE;
        }
      else if (c == ';' || c == ':')
        {
          push_param (&pending, params, &n_params, (Param) { value, next_sub });
          next_sub = c == ':';
          value = 0;
          have_value = FALSE;
        }
      else if (c >= 0x3c && c <= 0x3f)
        {
          private = TRUE;
        }
      else if (c >= 0x20 && c <= 0x2f)
        {
          intermediates = TRUE;
        }
      else if (c >= 0x40 && c <= 0x7e)
        {
          /* Anything but SGR is dropped, and so is what @pending got. */
          if (c == 'm' && !private && !intermediates)
            {
              /* The last parameter; "ESC [ m" has none. */
              if (have_value || n_params > 0 || next_sub)
                push_param (&pending, params, &n_params, (Param) { value, next_sub });

              apply_sgr (&pending, params, n_params, TRUE);
              if (!style_equal (&pending, &conv->style))
                {
                  flush_run (conv);
                  conv->style = pending;
                }
            }
          return p + 1;
        }
      else
        {
          /* A control character or a non-ASCII byte inside the sequence:
           * the sequence is broken. Drop what was read and go on with
           * this byte as text (it may be the ESC of the next one). */
          return p;
        }
    }

  /* Cut off by the end of the line. */
  return end;
}

/* Skips an OSC/DCS/SOS/PM/APC string; @p points just after its opener. It
 * ends at BEL or ST (ESC \). */
static const char *
skip_string (const char *p,
             const char *end)
{
  for (; p < end; p++)
    {
      if (*p == BEL)
        return p + 1;
      if (*p == ESC)
        return (p + 1 < end && p[1] == '\\') ? p + 2 : p + 1;
    }
  return end;
}

/* @p points at an ESC. Returns where the text resumes. */
static const char *
parse_escape (Converter  *conv,
              const char *p,
              const char *end)
{
  guchar c;

  p++;
  if (p >= end)
    return end;

  c = (guchar) *p;
  switch (c)
    {
    case '[':
      return parse_csi (conv, p + 1, end);

    case ']': case 'P': case 'X': case '^': case '_':
      return skip_string (p + 1, end);

    default:
      break;
    }

  /* ESC, intermediates, a final byte: charset selection and the like. */
  while (p < end && (guchar) *p >= 0x20 && (guchar) *p <= 0x2f)
    p++;
  if (p < end && (guchar) *p >= 0x30 && (guchar) *p <= 0x7e)
    return p + 1;

  /* A stray ESC: drop it alone. */
  return p;
}

/**
 * zot_ansi_to_pango_with_defaults:
 * @line: (nullable): one line, maybe with escapes and invalid UTF-8
 * @default_foreground: 0xRRGGBB, the text colour where no colour was set
 * @default_background: 0xRRGGBB, the background where no colour was set
 * @attributes: (out) (optional): the attributes, with byte offsets into
 *   the returned text
 *
 * Like zot_ansi_to_pango(), with the colours that reverse video swaps in
 * where the line set none; a view passes its theme's colours.
 *
 * Returns: (transfer full): valid UTF-8 without escape sequences
 */
char *
zot_ansi_to_pango_with_defaults (const char     *line,
                                 guint32         default_foreground,
                                 guint32         default_background,
                                 PangoAttrList **attributes)
{
  Converter conv = { 0 };
  const char *p;
  const char *end;

  if (line == NULL)
    line = "";

  conv.out = g_string_sized_new (strlen (line));
  conv.attrs = pango_attr_list_new ();
  conv.default_fg = default_foreground & 0xffffff;
  conv.default_bg = default_background & 0xffffff;

  p = line;
  end = line + strlen (line);

  while (p < end)
    {
      guchar c = (guchar) *p;

      if (c == ESC)
        {
          p = parse_escape (&conv, p, end);
        }
      else if (c < 0x20 || c == 0x7f)
        {
          if (c == '\t' || c == '\n')
            g_string_append_c (conv.out, (char) c);
          p++;
        }
      else if (c < 0x80)
        {
          const char *start = p;

          /* Plain ASCII, the common case, in one append. */
          while (p < end && (guchar) *p >= 0x20 && (guchar) *p < 0x7f)
            p++;
          g_string_append_len (conv.out, start, p - start);
        }
      else
        {
          gunichar ch = g_utf8_get_char_validated (p, end - p);

          if (ch == (gunichar) -1 || ch == (gunichar) -2)
            {
              g_string_append (conv.out, REPLACEMENT_CHARACTER);
              p++;
            }
          else
            {
              int len = g_utf8_skip[c];

              /* C1 controls (0x9B is an 8-bit CSI): never shown. */
              if (ch >= 0x80 && ch < 0xa0)
                {
                  p += len;
                  continue;
                }
              g_string_append_len (conv.out, p, len);
              p += len;
            }
        }
    }

  flush_run (&conv);

  if (attributes != NULL)
    *attributes = conv.attrs;
  else
    pango_attr_list_unref (conv.attrs);

  return g_string_free (conv.out, FALSE);
}

/**
 * zot_ansi_to_pango:
 * @line: (nullable): one line, maybe with escapes and invalid UTF-8
 * @attributes: (out) (optional): the attributes, with byte offsets into
 *   the returned text
 *
 * Removes every escape sequence from @line, turning SGR sequences into
 * Pango attributes: bold, dim, italic, underline, reverse, strikethrough,
 * the 16 colours, the 256-colour palette and true colour, foreground and
 * background, and their resets.
 *
 * Returns: (transfer full): valid UTF-8 without escape sequences
 */
char *
zot_ansi_to_pango (const char     *line,
                   PangoAttrList **attributes)
{
  return zot_ansi_to_pango_with_defaults (line, DEFAULT_FOREGROUND, DEFAULT_BACKGROUND, attributes);
}

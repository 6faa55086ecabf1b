package cli

import (
	"fmt"
	"strings"

	"github.com/bwmarrin/discordgo"
)

// The words `clefs try` prints itself (its prompt, help, errors, the lines
// it adds around the bot's messages), in the session's language: the
// language of the interactions it sends, so that a French session reads
// French throughout. The bot's own messages come in that language from
// the bot.

// tryLang is the language of a try session.
type tryLang int

const (
	langEN tryLang = iota
	langFR
)

// langOf is the language of a Discord locale: French for fr, else English.
func langOf(l discordgo.Locale) tryLang {
	if strings.HasPrefix(string(l), "fr") {
		return langFR
	}
	return langEN
}

// code is the language's code as -lang and "lang" take it.
func (l tryLang) code() string {
	if l == langFR {
		return "fr"
	}
	return "en"
}

// t is message key in l, formatted with args as fmt.Sprintf does. Both
// languages of a message take the same arguments in the same order
// (TestTryMessages checks it); a missing key shows as itself.
func (l tryLang) t(key string, args ...any) string {
	m, ok := tryMessages[key]
	if !ok {
		return key
	}
	return fmt.Sprintf(m[l], args...)
}

// tryMessages holds each message in English then French.
var tryMessages = map[string][2]string{
	// The session.
	"banner": {
		"Les Clefs du Trésor, locally: a fake Discord on %s, the bot connected, a temporary store in %s (%s).\n" +
			"You are user 42 in a test server. Type /play to start, help for the commands, quit to leave.\n",
		"Les Clefs du Trésor, en local : un faux Discord sur %s, le bot connecté, un stockage temporaire dans %s (%s).\n" +
			"Vous êtes l'utilisateur 42 d'un serveur de test. Tapez /jouer pour commencer, help pour les commandes, quit pour sortir.\n",
	},
	"logs_file":   {"logs in %s", "journaux dans %s"},
	"logs_stderr": {"logs on stderr", "journaux sur stderr"},
	"bye":         {"Bye: the bot stops and the temporary store is removed.\n", "Au revoir : le bot s'arrête et le stockage temporaire est supprimé.\n"},
	"lang_usage":  {"lang: want en or fr, e.g. lang fr", "lang : en ou fr, par ex. lang fr"},
	"as_usage":    {"as: want a user, a number (as 43) or mod (a moderator)", "as : un utilisateur, un nombre (as 43) ou mod (un modérateur)"},
	"unknown": {
		"unknown command %q: type a /command (%s), a button's label (%s), help, as, lang or quit",
		"commande inconnue %q : tapez une /commande (%s), le libellé d'un bouton (%s), help, as, lang ou quit",
	},
	"no_buttons_word": {"no buttons", "aucun bouton"},

	// The rendering.
	"only_you":  {"(only you) ", "(vous seul) "},
	"greyed":    {" ·greyed", " ·grisé"},
	"field":     {"%s: %s", "%s : %s"}, // an inline field, "Balance: 19.50 credits"
	"empty_msg": {"(an empty message)", "(un message vide)"},
	"not_held":  {"   (%s not saved: the fake Discord does not hold it)\n", "   (%s non enregistré : le faux Discord ne l'a pas)\n"},
	"not_name":  {"   (%q not saved: not a file name)\n", "   (%q non enregistré : pas un nom de fichier)\n"},
	"not_saved": {"   (not saved: %v)\n", "   (non enregistré : %v)\n"},
	"saved_as":  {"   saved as %s\n", "   enregistré sous %s\n"},
	"no_answer": {"the bot did not answer: %s", "le bot n'a pas répondu : %s"},

	// Discord's refusals.
	"refused":           {"Discord refuses: %s", "Discord refuse : %s"},
	"refused_forbidden": {"Discord refuses: /%s is for moderators (try: as mod)", "Discord refuse : /%s est réservée aux modérateurs (essayez : as mod)"},
	"refused_unknown":   {"Discord refuses: the bot has no /%s (help lists the commands)", "Discord refuse : le bot n'a pas de /%s (help liste les commandes)"},

	// The buttons.
	"press_none": {
		"no button %q to press: the buttons of your last card are %s",
		"aucun bouton %q à appuyer : les boutons de votre dernière carte sont %s",
	},
	"press_nothing": {"no button %q to press: no card with buttons yet (/play first)", "aucun bouton %q à appuyer : pas encore de carte à boutons (/jouer d'abord)"},
	"press_many":    {"%q matches several buttons: %s; type more of the label", "%q désigne plusieurs boutons : %s ; tapez davantage du libellé"},
	"press_greyed":  {"%s is disabled (greyed): nothing left to press there", "%s est désactivé (grisé) : plus rien à appuyer là"},
	"row_usage":     {"row: want a row from 1 to 3, e.g. row 2", "ligne : une ligne de 1 à 3, par ex. ligne 2"},

	// The slash commands.
	"slash_empty":      {"type a command after the /, e.g. /play", "tapez une commande après le /, par ex. /jouer"},
	"slash_unknown":    {"unknown command /%s: the bot has %s", "commande inconnue /%s : le bot a %s"},
	"slash_needs":      {"%s needs one of: %s (e.g. %s)", "%s attend l'une de : %s (par ex. %s)"},
	"slash_bad_sub":    {"%s has no %q: one of %s (e.g. %s)", "%s n'a pas de %q : l'une de %s (par ex. %s)"},
	"slash_usage":      {"%s: %s; usage: %s", "%s : %s ; usage : %s"},
	"opt_twice":        {"%s given twice", "%s donné deux fois"},
	"opt_too_many":     {"too many values (from %q on)", "trop de valeurs (à partir de %q)"},
	"opt_missing":      {"%s is missing", "option %s manquante"},
	"opt_value":        {"%s: %s", "%s : %s"},
	"want_int":         {"want a whole number, got %q", "un nombre entier, pas %q"},
	"want_number":      {"want a number, got %q", "un nombre, pas %q"},
	"want_bool":        {"want true or false, got %q", "true ou false (oui ou non), pas %q"},
	"want_user":        {"want a user (@42, 42 or @mod), got %q", "un utilisateur (@42, 42 ou @mod), pas %q"},
	"want_channel":     {"want a channel: here or its ID (this one is %s), got %q", "un salon : here ou son ID (celui-ci est %s), pas %q"},
	"want_choice":      {"%q is not a choice: want one of %s", "%q n'est pas un choix : l'un de %s"},
	"want_range":       {"want a number from %s to %s, got %q", "un nombre de %s à %s, pas %q"},
	"want_length":      {"want %d to %d characters, got %d", "de %d à %d caractères, pas %d"},
	"help_title":       {"Slash commands, as in Discord (English or French names: /play or /jouer):\n", "Commandes, comme dans Discord (noms français ou anglais : /jouer ou /play) :\n"},
	"help_mods":        {"(moderators) ", "(modérateurs) "},
	"help_choices":     {"%s: %s", "%s : %s"},
	"help_no_such":     {"help: no command /%s; help alone lists them", "help : pas de commande /%s ; help seul les liste"},
	"help_options_tip": {"Details of one command: help /%s", "Le détail d'une commande : help /%s"},
	"help_rest": {
		`Options go in order (the last text one takes the rest of the line), or by
name as Discord writes them: /admin grant user:@42 amount:5 reason:gift.
A user is @42, 42 or @mod; a channel is here or its ID. A file the bot
sends (/fairness export) is saved in the current directory or -files DIR.
Buttons (of your last card that has them): type the label, in any case,
with or without accents, or its start: auto, row 2, open, again, yes,
cancel… (French works too: ligne 2, ouvrir, rejouer, oui, annuler).
Session:
  as <user>    act as another user: a number (42, 43…) or mod (a moderator)
  lang fr|en   the language of your Discord client (the interaction's locale)
  help [/cmd]  this list, or one command's options
  quit         leave (end of input too)
Cards: ┃ frames an embed; [buttons] follow, a disabled one marked ·greyed;
"(only you)" is an ephemeral reply only the acting user sees.
`,
		`Les options se donnent dans l'ordre (la dernière option texte prend la fin
de la ligne), ou par nom comme Discord les écrit : /admin crediter joueur:@42 montant:5 raison:cadeau.
Un utilisateur s'écrit @42, 42 ou @mod ; un salon, here ou son ID. Un
fichier envoyé par le bot (/equite exporter) est enregistré dans le
répertoire courant ou dans -files DIR.
Boutons (de votre dernière carte qui en a) : tapez le libellé, en
majuscules ou minuscules, avec ou sans accents, ou son début : auto,
ligne 2, ouvrir, rejouer, oui, annuler… (l'anglais marche aussi : row 2,
open, again, yes, cancel).
Session :
  as <user>    agir en tant qu'un autre utilisateur : un nombre (42, 43…) ou mod (un modérateur)
  lang fr|en   la langue de votre client Discord (la locale de l'interaction)
  help [/cmd]  cette liste, ou les options d'une commande
  quit         sortir (la fin de l'entrée aussi)
Cartes : ┃ encadre un embed ; les [boutons] suivent, un bouton désactivé marqué ·grisé ;
« (vous seul) » est une réponse éphémère que seul l'utilisateur voit.
`,
	},
}

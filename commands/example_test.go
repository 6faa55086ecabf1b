package commands_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/commands"
)

// printer is a Responder that prints the first lines of the reply.
type printer struct{}

func (printer) Respond(_ context.Context, _ *discordgo.Interaction, r *discordgo.InteractionResponse) error {
	e := r.Data.Embeds[0]
	fmt.Println(e.Title)
	lines := strings.Split(e.Description, "\n")
	fmt.Println(lines[2])
	fmt.Println(lines[len(lines)-1])
	fmt.Println("ephemeral:", r.Data.Flags&discordgo.MessageFlagsEphemeral != 0)
	return nil
}
func (printer) EditOriginal(context.Context, *discordgo.Interaction, *discordgo.WebhookEdit) error {
	return nil
}
func (printer) FollowUp(context.Context, *discordgo.Interaction, *discordgo.WebhookParams) error {
	return nil
}

func ExampleApp_Handle() {
	app := commands.New(commands.Config{}, nil) // /rules reads no store
	app.Handle(context.Background(), printer{}, &discordgo.Interaction{
		Type:    discordgo.InteractionApplicationCommand,
		GuildID: "1100000000000000000",
		Member:  &discordgo.Member{User: &discordgo.User{ID: "1000000000000000001"}},
		Locale:  discordgo.French,
		Data:    discordgo.ApplicationCommandInteractionData{Name: "rules"},
	})
	// Output:
	// 🎟️ Le jeu principal
	// 💎💎💎 **5 000,00 crédits** · 1 chance sur 2 000 000,000
	// Tous rangs confondus : environ 1 chance sur 3,93.
	// ephemeral: true
}

func ExampleApp_Definitions() {
	app := commands.New(commands.Config{}, nil)
	for _, c := range app.Definitions() {
		fmt.Printf("/%s /%s\n", c.Name, (*c.NameLocalizations)[discordgo.French])
	}
	// Output:
	// /play /jouer
	// /balance /solde
	// /rules /regles
	// /leaderboard /classement
	// /daily /bonus
	// /history /historique
	// /fairness /equite
	// /limits /limites
	// /pause /pause
	// /admin /admin
}

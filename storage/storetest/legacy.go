package storetest

import (
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// The writers of dumps of versions 1 to 3 (storage.LegacyDumpVersion):
// no release writes them any more, and storage reads them (record.go), so
// only tests need to make them.

// NewRecord returns the version 3 dump record (storage.Record) of player
// id, p, with its history hist and its reveals, oldest first: what the
// releases before the schema wrote, which storage.ReadDump still reads.
// Only tests write such dumps.
func NewRecord(id storage.PlayerID, p game.Player, hist []game.Entry, reveals ...game.SeedReveal) storage.Record {
	r := storage.Record{
		GuildID: id.Guild, UserID: id.User, BalanceCents: p.Balance, StartingBalanceCents: p.StartingBalance,
		Keys: p.Keys, ChestPending: p.ChestDue, ChestSeq: p.ChestSeq, TicketSeq: p.TicketSeq,
		Stats: storage.StatsRecord(p.Stats), CreatedAt: p.CreatedAt,
		Seed: p.Seed.Hex(), ClientSeed: p.ClientSeed, SeedNo: p.SeedNo,
		SeedAfterTicket: p.SeedTicket, SeedAfterChest: p.SeedChest, SeedCommittedAt: timePtr(p.SeedAt),
	}
	if p.NextSeed != (game.Seed{}) {
		r.NextSeed = p.NextSeed.Hex()
	}
	for _, v := range reveals {
		r.Revealed = append(r.Revealed, storage.RevealRecord{
			No: v.No, ServerSeed: v.Seed.Hex(), ClientSeed: v.ClientSeed,
			FirstTicket: v.FirstTicket, LastTicket: v.LastTicket, FirstChest: v.FirstChest, LastChest: v.LastChest,
			CommittedAt: timePtr(v.CommittedAt), RevealedAt: v.RevealedAt,
		})
	}
	if p.Ticket != nil {
		t := ticketRecord(*p.Ticket)
		if p.Ticket.Open() {
			r.OpenTicket = &t
		} else {
			r.LastTicket = &t
		}
	}
	if p.LastChest != nil {
		r.LastChest = &storage.ChestRecord{Lot: p.LastChest.Lot, PrizeCents: p.LastChest.Prize}
	}
	if !p.LastDaily.IsZero() {
		d := p.LastDaily
		r.LastDaily = &d
	}
	careRecord(&r, p.Care)
	for _, h := range hist {
		hr := storage.HistoryRecord{
			At: h.At, Kind: h.Kind, TicketID: h.TicketID, Tier: h.Tier, Key: h.Key,
			Lot: h.Lot, AmountCents: h.Amount, BalanceCents: h.Balance,
		}
		switch {
		case h.Fair && h.Kind == game.KindPlay:
			k := h.KeysBefore
			hr.KeysBefore, hr.Grid = &k, h.Grid.String()
		case h.Fair && h.Kind == game.KindChest:
			hr.Chest = h.Chest
		}
		r.History = append(r.History, hr)
	}
	return r
}

// careRecord writes c into r, leaving out what is zero.
func careRecord(r *storage.Record, c game.Care) {
	for k, l := range c.Limits {
		if l == (game.Limit{}) {
			continue
		}
		if r.Limits == nil {
			r.Limits = make(map[string]storage.LimitRecord)
		}
		r.Limits[game.LimitKind(k).String()] = storage.LimitRecord{AmountCents: l.Amount, NextCents: l.Next, NextAt: timePtr(l.At)}
	}
	if c.Reminder != 0 {
		r.Reminder = c.Reminder.String()
	}
	r.PausedUntil = timePtr(c.PausedUntil)
	if s := c.Spend; s != (game.Spend{}) {
		r.Spend = &storage.SpendRecord{
			Day: timePtr(s.Day), Week: timePtr(s.Week),
			StakedDayCents: s.StakedDay, WonDayCents: s.WonDay, StakedWeekCents: s.StakedWeek, WonWeekCents: s.WonWeek,
		}
	}
	if s := c.Session; s != (game.Session{}) {
		r.Session = &storage.SessionRecord{
			Start: timePtr(s.Start), Last: timePtr(s.Last), Plays: s.Plays, NetCents: s.Net,
			CheckedAt: timePtr(s.CheckedAt), CheckedPlays: s.CheckedPlays,
		}
	}
}

// timePtr returns &t, or nil for the zero time.
func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

func ticketRecord(t game.Ticket) storage.TicketRecord {
	r := storage.TicketRecord{ID: t.ID, BoughtAt: t.BoughtAt, Drawn: t.Drawn, KeysAfter: t.KeysAfter, Chest: t.Chest, RevealedRows: uint8(t.Revealed)}
	if t.Drawn {
		o := t.Outcome
		r.Outcome = &storage.OutcomeRecord{Tier: o.Tier, PrizeCents: o.Prize, Key: o.Key, Row: o.Row, Grid: o.Grid.String()}
	}
	return r
}

// NewGuildRecord returns the version 3 dump record of a guild's settings
// (nil if never set) and audit log, oldest first.
func NewGuildRecord(guild uint64, s *game.Settings, audit []game.AuditEntry) storage.GuildRecord {
	g := storage.GuildRecord{GuildID: guild}
	if s != nil {
		h := s.House
		g.Settings = &storage.SettingsRecord{
			StartingBalanceCents: s.StartingBalance, DailyAmountCents: s.DailyAmount,
			DailyCooldown: s.DailyCooldown.String(), PublicPlays: s.PublicPlays, ChannelID: s.Channel,
			House: &storage.HouseRecord{
				MaxStakeDayCents: h.MaxStakeDay, MinInterval: h.MinInterval.String(),
				RealityPlays: h.RealityPlays, RealityEvery: h.RealityEvery.String(),
			},
		}
	}
	for _, a := range audit {
		g.Audit = append(g.Audit, storage.AuditRecord{At: a.At, ActorID: a.Actor, TargetID: a.Target, Action: a.Action, AmountCents: a.Amount, Reason: a.Reason})
	}
	return g
}

import { Card, Empty, theme } from 'antd';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { palette, type SeriesRow } from './series';

interface ModelChartProps {
  title: string;
  rows: SeriesRow[];
  models: string[];
  format: (value: number) => string;
  emptyText: string;
}

/** A stacked bar chart of one metric by model over time. */
export function ModelChart({ title, rows, models, format, emptyText }: ModelChartProps) {
  const { token } = theme.useToken();
  return (
    <Card size="small" title={title}>
      {rows.length === 0 ? (
        <Empty description={emptyText} />
      ) : (
        <div style={{ width: '100%', height: 280 }} role="img" aria-label={title}>
          <ResponsiveContainer>
            <BarChart data={rows} margin={{ top: 8, right: 16, left: 8, bottom: 0 }}>
              <CartesianGrid strokeDasharray="3 3" stroke={token.colorBorderSecondary} />
              <XAxis dataKey="label" tick={{ fill: token.colorTextSecondary, fontSize: 12 }} />
              <YAxis tickFormatter={(value: number) => format(value)} tick={{ fill: token.colorTextSecondary, fontSize: 12 }} width={72} />
              <Tooltip
                formatter={(value) => format(Number(value))}
                contentStyle={{ background: token.colorBgElevated, border: `1px solid ${token.colorBorder}`, color: token.colorText }}
                cursor={{ fill: token.colorFillTertiary }}
              />
              <Legend />
              {models.map((model, index) => (
                <Bar key={model} dataKey={model} stackId="models" fill={palette[index % palette.length]} isAnimationActive={false} />
              ))}
            </BarChart>
          </ResponsiveContainer>
        </div>
      )}
    </Card>
  );
}
